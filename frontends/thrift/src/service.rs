//! The metastore service as one connection sees it: fb303 and the session calls here; the
//! catalog calls in their own modules as they come.

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{SystemTime, UNIX_EPOCH};

use hivestore_idl::fb303::FbStatus;
use hivestore_idl::handler::Handler;

use crate::counters::Counters;

/// The name fb303 `getName` answers.
pub const SERVICE_NAME: &str = "hivestore";
/// The version fb303 `getVersion` answers: hivestore's own.
pub const SERVICE_VERSION: &str = env!("CARGO_PKG_VERSION");

/// Every method hivestore implements, by wire name. The rest answer `UNKNOWN_METHOD` whatever
/// their arguments (Hive's client takes that as "older metastore" and falls back where it can).
/// Keep it sorted; the README's compatibility table follows it.
pub const IMPLEMENTED_METHODS: &[&str] = &[
    "aliveSince",
    "getCounter",
    "getCounters",
    "getName",
    "getOption",
    "getOptions",
    "getStatus",
    "getStatusDetails",
    "getVersion",
    "reinitialize",
    "setOption",
    "set_ugi",
    "shutdown",
];

/// Whether hivestore implements the method with this wire name.
pub fn is_implemented(method: &str) -> bool {
    IMPLEMENTED_METHODS.binary_search(&method).is_ok()
}

/// State shared by every connection of one server.
pub struct ServerState {
    /// When the server started, in seconds since the Unix epoch (fb303 `aliveSince`).
    started_at_seconds: i64,
    /// Call and error counts (fb303 `getCounters`).
    pub counters: Counters,
    /// Options set through fb303 `setOption`; informational only.
    options: Mutex<BTreeMap<String, String>>,
}

impl ServerState {
    /// State for a server starting now.
    pub fn new() -> Self {
        let started_at_seconds = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |elapsed| {
                i64::try_from(elapsed.as_secs()).unwrap_or(i64::MAX)
            });
        ServerState {
            started_at_seconds,
            counters: Counters::default(),
            options: Mutex::new(BTreeMap::new()),
        }
    }
}

impl Default for ServerState {
    fn default() -> Self {
        Self::new()
    }
}

/// One client connection: who it says it is, and the server it talks to.
pub struct Session {
    state: Arc<ServerState>,
    peer: SocketAddr,
    /// The user named by `set_ugi`, if the client sent one.
    user: Mutex<Option<String>>,
}

impl Session {
    /// A session for the client at `peer`.
    pub fn new(state: Arc<ServerState>, peer: SocketAddr) -> Self {
        Session {
            state,
            peer,
            user: Mutex::new(None),
        }
    }

    /// The user the client named with `set_ugi`, if any.
    pub fn user(&self) -> Option<String> {
        self.user
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    fn options(&self) -> std::sync::MutexGuard<'_, BTreeMap<String, String>> {
        self.state
            .options
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }
}

impl Handler for Session {
    fn get_name(&self) -> thrift::Result<String> {
        Ok(SERVICE_NAME.to_string())
    }

    fn get_version(&self) -> thrift::Result<String> {
        Ok(SERVICE_VERSION.to_string())
    }

    fn get_status(&self) -> thrift::Result<FbStatus> {
        Ok(FbStatus::ALIVE)
    }

    fn get_status_details(&self) -> thrift::Result<String> {
        Ok(format!("{SERVICE_NAME} {SERVICE_VERSION} is alive"))
    }

    fn alive_since(&self) -> thrift::Result<i64> {
        Ok(self.state.started_at_seconds)
    }

    fn get_counters(&self) -> thrift::Result<BTreeMap<String, i64>> {
        Ok(self.state.counters.snapshot())
    }

    fn get_counter(&self, key: String) -> thrift::Result<i64> {
        Ok(self
            .state
            .counters
            .snapshot()
            .get(&key)
            .copied()
            .unwrap_or(0))
    }

    fn set_option(&self, key: String, value: String) -> thrift::Result<()> {
        self.options().insert(key, value);
        Ok(())
    }

    fn get_option(&self, key: String) -> thrift::Result<String> {
        Ok(self.options().get(&key).cloned().unwrap_or_default())
    }

    fn get_options(&self) -> thrift::Result<BTreeMap<String, String>> {
        Ok(self.options().clone())
    }

    /// Hive sends nothing useful here and expects nothing back.
    fn reinitialize(&self) -> thrift::Result<()> {
        Ok(())
    }

    /// The Hive 2.3 client sends this one-way call when it closes: it ends the session, never
    /// the server.
    fn shutdown(&self) -> thrift::Result<()> {
        tracing::debug!(peer = %self.peer, "client ended its session");
        *self.user.lock().unwrap_or_else(PoisonError::into_inner) = None;
        Ok(())
    }

    /// Records the caller for this connection; like Hive, answers the groups it was given.
    fn set_ugi(&self, user_name: String, group_names: Vec<String>) -> thrift::Result<Vec<String>> {
        tracing::debug!(peer = %self.peer, user = %user_name, "set_ugi");
        *self.user.lock().unwrap_or_else(PoisonError::into_inner) = Some(user_name);
        Ok(group_names)
    }

    fn observe(&self, method: &'static str, failed: bool) {
        self.state.counters.record_call(method, failed);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use hivestore_idl::handler::METHODS;

    #[test]
    fn implemented_methods_are_sorted_and_all_in_the_idl() {
        assert!(IMPLEMENTED_METHODS.windows(2).all(|pair| pair[0] < pair[1]));
        for name in IMPLEMENTED_METHODS {
            assert!(
                METHODS.iter().any(|method| method.name == *name),
                "{name} is not in the IDL"
            );
        }
    }
}
