//! fb303, the base service every Thrift server of Hive's family answers: name, version,
//! status, counters, options and (an empty) CPU profile.

use std::collections::BTreeMap;

use hivestore_idl::fb303::FbStatus;

use crate::access::{Need, Target};
use crate::service::{Session, SERVICE_NAME, SERVICE_VERSION};

/// `getName`.
pub fn name(session: &Session) -> thrift::Result<String> {
    session.authorize(Need::Anyone, Target::Server)?;
    Ok(SERVICE_NAME.to_string())
}

/// `getVersion`: hivestore's own.
pub fn version(session: &Session) -> thrift::Result<String> {
    session.authorize(Need::Anyone, Target::Server)?;
    Ok(SERVICE_VERSION.to_string())
}

/// `getStatus`: a server that answers is alive.
pub fn status(session: &Session) -> thrift::Result<FbStatus> {
    session.authorize(Need::Anyone, Target::Server)?;
    Ok(FbStatus::ALIVE)
}

/// `getStatusDetails`.
pub fn status_details(session: &Session) -> thrift::Result<String> {
    session.authorize(Need::Anyone, Target::Server)?;
    Ok(format!("{SERVICE_NAME} {SERVICE_VERSION} is alive"))
}

/// `aliveSince`: when the server started, in seconds since the Unix epoch.
pub fn alive_since(session: &Session) -> thrift::Result<i64> {
    session.authorize(Need::Anyone, Target::Server)?;
    Ok(session.started_at_seconds())
}

/// `getCpuProfile`: the empty string, as Hive's metastore answers it (it profiles nothing).
pub fn cpu_profile(session: &Session, _profile_duration_in_sec: i32) -> thrift::Result<String> {
    session.authorize(Need::Anyone, Target::Server)?;
    Ok(String::new())
}

/// `getCounters`.
pub fn counters(session: &Session) -> thrift::Result<BTreeMap<String, i64>> {
    session.authorize(Need::Anyone, Target::Server)?;
    Ok(session.counters())
}

/// `getCounter`: 0 for a counter that does not exist.
pub fn counter(session: &Session, key: String) -> thrift::Result<i64> {
    session.authorize(Need::Anyone, Target::Server)?;
    Ok(session.counters().get(&key).copied().unwrap_or(0))
}

/// `setOption`: informational only.
pub fn set_option(session: &Session, key: String, value: String) -> thrift::Result<()> {
    session.authorize(Need::Admin, Target::Server)?;
    session.options().insert(key, value);
    Ok(())
}

/// `getOption`: the empty string for an option never set.
pub fn option(session: &Session, key: String) -> thrift::Result<String> {
    session.authorize(Need::Anyone, Target::Server)?;
    Ok(session.options().get(&key).cloned().unwrap_or_default())
}

/// `getOptions`.
pub fn options(session: &Session) -> thrift::Result<BTreeMap<String, String>> {
    session.authorize(Need::Anyone, Target::Server)?;
    Ok(session.options().clone())
}

/// `reinitialize`: Hive sends nothing useful here and expects nothing back.
pub fn reinitialize(session: &Session) -> thrift::Result<()> {
    session.authorize(Need::Admin, Target::Server)?;
    Ok(())
}

/// `shutdown`: the Hive 2.3 client sends this one-way call just before it closes its socket.
/// The session forgets its user, and the connection stays open (as Apache's HMS keeps it);
/// never the server.
pub fn shutdown(session: &Session) -> thrift::Result<()> {
    session.authorize(Need::Anyone, Target::Server)?;
    tracing::debug!(peer = %session.peer(), "client ended its session");
    session.set_user(None);
    Ok(())
}
