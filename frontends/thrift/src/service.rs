//! The metastore service as one connection sees it: the server's shared state and one
//! connection's session. The calls are answered in `calls/`, as `methods.rs` names them.

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex, OnceLock, PoisonError};
use std::time::{SystemTime, UNIX_EPOCH};

use hivestore_engine::Store;

use crate::access::AccessPolicy;
use crate::audit::{AuditLog, CallOutcome};
use crate::auth::delegation::{SecretManager, TokenSettings};
use crate::auth::{AuthPolicy, Caller};
use crate::counters::Counters;
use crate::direct::EncodedTables;
use crate::inflight::InflightBytes;
use crate::limits::Limits;

/// The name fb303 `getName` answers.
pub const SERVICE_NAME: &str = "hivestore";
/// The version fb303 `getVersion` answers: hivestore's own.
pub const SERVICE_VERSION: &str = env!("CARGO_PKG_VERSION");

/// State shared by every connection of one server.
pub struct ServerState {
    /// The catalog.
    store: Store,
    /// When the server started, in seconds since the Unix epoch (fb303 `aliveSince`).
    started_at_seconds: i64,
    /// Call and error counts (fb303 `getCounters`).
    pub counters: Counters,
    /// Options set through fb303 `setOption`; informational only.
    options: Mutex<BTreeMap<String, String>>,
    /// Tables as last encoded for `get_table` (see `direct`).
    encoded_tables: EncodedTables,
    /// Bytes of unfinished requests held by all connections' read buffers.
    pub inflight: Arc<InflightBytes>,
    /// The server's settings that clients may read (`get_config_value`).
    settings: ServerSettings,
    /// Where the server listens and its limits, once it is bound.
    listening: OnceLock<Listening>,
    /// What clients must prove, and how.
    auth: AuthPolicy,
    /// How the HTTP transport is served.
    http: crate::http::HttpSettings,
    /// The delegation tokens' secret manager.
    secret_manager: SecretManager,
    /// What the server checks of its callers.
    access: AccessPolicy,
    /// The audit log, when one is written (`--audit-log`).
    audit: Option<Arc<AuditLog>>,
    /// The source this server follows until cut-over (`--follow-from`), if any.
    following: Option<Arc<crate::following::Following>>,
}

/// What a bound server answers `get_config_value` with: its port and its wire limits.
#[derive(Debug, Clone, Copy)]
pub struct Listening {
    /// The port clients connect to.
    pub port: u16,
    /// The limits every connection is held to.
    pub limits: Limits,
    /// Whether it serves TLS (Hive's `metastore.use.SSL`).
    pub tls: bool,
}

/// Settings of the server, beside the store's options, that `get_config_value` answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ServerSettings {
    /// How long notification events are kept (`--event-ttl-secs`).
    pub event_ttl: std::time::Duration,
    /// How often expired events are deleted (`--event-clean-interval-secs`).
    pub event_clean_interval: std::time::Duration,
    /// The most partitions one call may fetch whole (`--limit-partition-request`).
    pub limit_partition_request: Option<u32>,
    /// How long delegation tokens and their master keys live.
    pub delegation_tokens: TokenSettings,
    /// Whether statistics reads return NDV sketches (`bitVectors`) and KLL histograms:
    /// Hive's `metastore.stats.fetch.bitvector` and `.kll` (`--stats-fetch-sketches`).
    pub stats_fetch_sketches: bool,
}

impl Default for ServerSettings {
    fn default() -> Self {
        ServerSettings {
            event_ttl: std::time::Duration::from_secs(crate::config::EVENT_TTL_SECS_DEFAULT),
            event_clean_interval: std::time::Duration::from_secs(
                crate::config::EVENT_CLEAN_INTERVAL_SECS_DEFAULT,
            ),
            limit_partition_request: None,
            delegation_tokens: TokenSettings::default(),
            stats_fetch_sketches: false,
        }
    }
}

impl ServerState {
    /// The catalog.
    pub fn store(&self) -> &Store {
        &self.store
    }

    /// State for a server over `store`, starting now.
    pub fn new(store: Store) -> Self {
        let started_at_seconds = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |elapsed| {
                i64::try_from(elapsed.as_secs()).unwrap_or(i64::MAX)
            });
        ServerState {
            store,
            started_at_seconds,
            counters: Counters::default(),
            options: Mutex::new(BTreeMap::new()),
            encoded_tables: EncodedTables::default(),
            inflight: Arc::default(),
            settings: ServerSettings::default(),
            listening: OnceLock::new(),
            auth: AuthPolicy::default(),
            http: crate::http::HttpSettings::default(),
            secret_manager: SecretManager::new(TokenSettings::default()),
            access: AccessPolicy::default(),
            audit: None,
            following: None,
        }
    }

    /// Serves the copy of a followed source: its writes go to the source until cut-over.
    pub fn with_following(mut self, following: Arc<crate::following::Following>) -> Self {
        self.following = Some(following);
        self
    }

    /// The source this server follows, while it does (and after its cut-over).
    pub fn following(&self) -> Option<&Arc<crate::following::Following>> {
        self.following.as_ref()
    }

    /// Records where the server listens and its limits; the first server bound keeps them.
    pub(crate) fn set_listening(&self, listening: Listening) {
        let _ = self.listening.set(listening);
    }

    /// Where the server listens and its limits, once bound.
    pub fn listening(&self) -> Option<Listening> {
        self.listening.get().copied()
    }

    /// The same state, asking clients to authenticate as `auth` says.
    pub fn with_auth(mut self, auth: AuthPolicy) -> Self {
        self.auth = auth;
        self
    }

    /// What clients must prove, and how.
    pub fn auth(&self) -> &AuthPolicy {
        &self.auth
    }

    /// The same state, serving the HTTP transport with `http`.
    pub fn with_http(mut self, http: crate::http::HttpSettings) -> Self {
        self.http = http;
        self
    }

    /// How the HTTP transport is served.
    pub fn http(&self) -> &crate::http::HttpSettings {
        &self.http
    }

    /// The same state, with `settings`.
    pub fn with_settings(mut self, settings: ServerSettings) -> Self {
        self.settings = settings;
        self.secret_manager = SecretManager::new(settings.delegation_tokens);
        self
    }

    /// The delegation tokens' secret manager.
    pub fn secret_manager(&self) -> &SecretManager {
        &self.secret_manager
    }

    /// The same state, checking callers as `access` says.
    pub fn with_access(mut self, access: AccessPolicy) -> Self {
        self.access = access;
        self
    }

    /// What the server checks of its callers.
    pub fn access(&self) -> &AccessPolicy {
        &self.access
    }

    /// The same state, writing every call's line to `audit`.
    pub fn with_audit(mut self, audit: Arc<AuditLog>) -> Self {
        self.audit = Some(audit);
        self
    }

    /// The audit log, when one is written.
    pub fn audit(&self) -> Option<&AuditLog> {
        self.audit.as_deref()
    }
}

/// One client connection: who it says it is, and the server it talks to.
pub struct Session {
    state: Arc<ServerState>,
    peer: SocketAddr,
    /// Who the connection authenticated as, if it did.
    caller: Option<Caller>,
    /// The user named by `set_ugi`, if the client sent one.
    user: Mutex<Option<String>>,
    /// Values this connection set with `setMetaConf`, by the name it used.
    meta_conf: Mutex<BTreeMap<String, String>>,
    /// The objects the current call named (`access.rs`), for its audit line.
    targets: Mutex<CallTargets>,
    /// How the current call failed, when it did and the server writes an audit log.
    failure: Mutex<Option<CallOutcome>>,
}

/// The objects one call named, at most `AUDIT_TARGETS_MAX` of them, and how many more.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct CallTargets {
    /// The objects, as the audit log writes them.
    pub named: Vec<String>,
    /// How many more the call named.
    pub omitted: usize,
}

impl Session {
    /// A session for the client at `peer`.
    pub fn new(state: Arc<ServerState>, peer: SocketAddr) -> Self {
        Session {
            state,
            peer,
            caller: None,
            user: Mutex::new(None),
            meta_conf: Mutex::new(BTreeMap::new()),
            targets: Mutex::new(CallTargets::default()),
            failure: Mutex::new(None),
        }
    }

    /// The session of a connection that authenticated as `caller`.
    pub fn authenticated(mut self, caller: Caller) -> Self {
        self.caller = Some(caller);
        self
    }

    /// Who the connection authenticated as, if it did.
    pub fn caller(&self) -> Option<&Caller> {
        self.caller.as_ref()
    }

    /// The server's settings.
    pub fn settings(&self) -> &ServerSettings {
        &self.state.settings
    }

    /// Where the server listens and its limits.
    pub fn listening(&self) -> Option<Listening> {
        self.state.listening()
    }

    /// The value this connection set for `key` with `setMetaConf`, if any.
    pub fn meta_conf_override(&self, key: &str) -> Option<String> {
        let overrides = self
            .meta_conf
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        overrides.get(key).cloned()
    }

    /// Sets `key` to `value` for this connection.
    pub fn set_meta_conf_override(&self, key: String, value: String) {
        let mut overrides = self
            .meta_conf
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        overrides.insert(key, value);
    }

    /// The catalog store.
    pub fn store(&self) -> &Store {
        &self.state.store
    }

    /// The delegation tokens' secret manager.
    pub fn secret_manager(&self) -> &SecretManager {
        &self.state.secret_manager
    }

    /// fb303's counters: the server's; `store.reopens`, how many times the store went back to
    /// its durable state after a write failed to reach the disk; and, with an audit log,
    /// `audit.write_errors`, how many of its writes failed.
    pub(crate) fn counters(&self) -> BTreeMap<String, i64> {
        let mut counters = self.state.counters.snapshot();
        match self.store().backend().size_on_disk() {
            Ok(Some(bytes)) => {
                let bytes = i64::try_from(bytes).unwrap_or(i64::MAX);
                counters.insert("store.size_on_disk_bytes".to_string(), bytes);
            }
            Ok(None) => {}
            Err(error) => tracing::warn!(%error, "cannot read the store's size on disk"),
        }
        let reopens = self.store().reopen_count();
        if reopens > 0 {
            counters.insert(
                "store.reopens".to_string(),
                i64::try_from(reopens).unwrap_or(i64::MAX),
            );
        }
        if let Some(audit) = self.state.audit() {
            counters.insert(
                "audit.write_errors".to_string(),
                i64::try_from(audit.write_errors()).unwrap_or(i64::MAX),
            );
        }
        counters
    }

    /// Tables as last encoded, shared by the server's connections.
    pub(crate) fn encoded_tables(&self) -> &EncodedTables {
        &self.state.encoded_tables
    }

    /// The caller's user: on an authenticated connection the user a proxy user acts as
    /// (`set_ugi`), else the authenticated one; otherwise the one the client named with
    /// `set_ugi`, if any.
    pub fn user(&self) -> Option<String> {
        let named = self
            .user
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone();
        named.or_else(|| self.caller.as_ref().map(|caller| caller.user.clone()))
    }

    /// Records that `user` (or nobody) is the caller of this connection's next calls; an
    /// authenticated connection keeps its caller, as Hive's SASL server does, and `None`
    /// ends whatever user it acted as.
    pub(crate) fn set_user(&self, user: Option<String>) {
        if self.caller.is_some() && user.is_some() {
            return;
        }
        *self.user.lock().unwrap_or_else(PoisonError::into_inner) = user;
    }

    /// `set_ugi`'s user: on a connection that did not authenticate, the caller from now on, as
    /// Hive takes it; on one that did, the user the caller acts as from now on, when the
    /// proxy-user rules let it (`--proxy-user-*`), else refused with why. Naming the
    /// authenticated user itself ends the acting.
    pub(crate) fn act_as(&self, user: String) -> Result<(), String> {
        let Some(caller) = &self.caller else {
            *self.user.lock().unwrap_or_else(PoisonError::into_inner) = Some(user);
            return Ok(());
        };
        if user == caller.user {
            *self.user.lock().unwrap_or_else(PoisonError::into_inner) = None;
            return Ok(());
        }
        let policy = self.access_policy();
        let groups = policy.groups.groups(&user);
        policy
            .proxy_users
            .authorize(&caller.user, self.peer.ip(), &user, &groups)?;
        *self.user.lock().unwrap_or_else(PoisonError::into_inner) = Some(user);
        Ok(())
    }

    /// The client's address.
    pub(crate) fn peer(&self) -> SocketAddr {
        self.peer
    }

    /// When the server started, in seconds since the Unix epoch.
    pub(crate) fn started_at_seconds(&self) -> i64 {
        self.state.started_at_seconds
    }

    /// Counts a call of `method`, and whether it failed.
    pub(crate) fn record_call(&self, method: &'static str, failed: bool) {
        self.state.counters.record_call(method, failed);
    }

    /// Keeps how the current call failed for its audit line, when the server writes one.
    pub(crate) fn keep_failure(&self, error: &thrift::Error) {
        if self.state.audit().is_some() {
            *self.failure.lock().unwrap_or_else(PoisonError::into_inner) =
                Some(CallOutcome::of_error(error));
        }
    }

    /// How the call just answered failed, if it did (kept only with an audit log).
    pub(crate) fn take_failure(&self) -> Option<CallOutcome> {
        self.failure
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take()
    }

    /// The audit log, when the server writes one.
    pub(crate) fn audit(&self) -> Option<&AuditLog> {
        self.state.audit()
    }

    /// The options set through fb303 `setOption`.
    pub(crate) fn options(&self) -> std::sync::MutexGuard<'_, BTreeMap<String, String>> {
        self.state
            .options
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }

    /// Records `target` among the current call's objects.
    pub(crate) fn record_target(&self, target: &crate::access::Target<'_>) {
        let mut targets = self.targets.lock().unwrap_or_else(PoisonError::into_inner);
        if targets.named.len() < crate::access::AUDIT_TARGETS_MAX {
            targets.named.push(target.to_string());
        } else {
            targets.omitted += 1;
        }
    }

    /// The objects the call just answered named, leaving none for the next.
    pub fn take_targets(&self) -> CallTargets {
        std::mem::take(&mut *self.targets.lock().unwrap_or_else(PoisonError::into_inner))
    }

    /// What the server checks of its callers.
    pub(crate) fn access_policy(&self) -> &AccessPolicy {
        &self.state.access
    }
}
