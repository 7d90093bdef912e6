//! Calls clients make around their real work: `set_ugi`, `get_config_value`, `getMetaConf`,
//! `setMetaConf`, `get_metastore_db_uuid`.

use hivestore_engine::DEFAULT_CATALOG_NAME;
use hivestore_idl::hive_metastore::ConfigValSecurityException;

use crate::access::{Need, Target};
use crate::errors::{exception, to_thrift, Declared};
use crate::metastore_conf::{self, ConfVar};
use crate::service::Session;

/// Hive exposes only keys under these prefixes through `get_config_value`.
const READABLE_PREFIXES: &[&str] = &["hive", "hdfs", "mapred", "metastore"];
/// The name Hive gives a partition whose key value is null or empty.
pub const DEFAULT_PARTITION_NAME: &str = "__HIVE_DEFAULT_PARTITION__";
/// The listener whose events hivestore's notification log holds, as Hive names it.
const NOTIFICATION_LISTENER: &str = "org.apache.hive.hcatalog.listener.DbNotificationListener";
/// The encoder of hivestore's event messages (`json-0.2`), as Hive names it.
const MESSAGE_ENCODER: &str = "org.apache.hadoop.hive.metastore.messaging.json.JSONMessageEncoder";

/// Settings outside `MetastoreConf` (Hive's `HiveConf` keeps them) whose behaviour hivestore
/// has, as its metastore would be configured: DML events (Impala refuses to start without
/// them) and whole Thrift objects in event messages.
const HIVE_CONF_ANSWERS: &[(&str, &str)] = &[
    ("hive.metastore.dml.events", "true"),
    ("hive.metastore.notifications.add.thrift.objects", "true"),
    ("hive.metastore.alter.notifications.basic", "false"),
];

/// `set_ugi`: names the caller of the connection's next calls (see `Session::act_as`: an
/// authenticated caller may act as another user only as a proxy user); like Hive, answers
/// the groups it was given.
pub fn set_ugi(
    session: &Session,
    user_name: String,
    group_names: Vec<String>,
) -> thrift::Result<Vec<String>> {
    tracing::debug!(peer = %session.peer(), user = %user_name, "set_ugi");
    if let Err(reason) = session.act_as(user_name) {
        tracing::warn!(peer = %session.peer(), %reason, "set_ugi refused");
        return Err(exception(Declared::Meta, reason));
    }
    Ok(group_names)
}

fn refused(name: &str) -> thrift::Error {
    let message = format!("For security reasons, the config key {name} cannot be accessed");
    thrift::Error::User(Box::new(ConfigValSecurityException {
        message: Some(hivestore_engine::bounded_message(message)),
    }))
}

/// `get_config_value`: Hive's security exception for keys outside `hive.*`, `hdfs.*`,
/// `mapred.*`, `metastore.*` and for secrets; for the variables of Hive 4's `MetastoreConf`
/// (by either name) the value hivestore has, else Hive's default; for the few `HiveConf` keys
/// whose behaviour hivestore has, its value; the caller's default for any other key.
pub fn config_value(
    session: &Session,
    name: String,
    default_value: String,
) -> thrift::Result<String> {
    session.authorize(Need::Anyone, Target::Server)?;
    if !READABLE_PREFIXES
        .iter()
        .any(|prefix| name.starts_with(prefix))
        || metastore_conf::is_secret(&name)
    {
        return Err(refused(&name));
    }
    if let Some(var) = metastore_conf::find(&name) {
        return Ok(server_value(session, var));
    }
    let hive_conf = HIVE_CONF_ANSWERS.iter().find(|(key, _)| *key == name);
    Ok(hive_conf.map_or(default_value, |(_, value)| (*value).to_string()))
}

/// What the server answers for `var`: its own setting where hivestore has the behaviour,
/// else Hive's default.
fn server_value(session: &Session, var: &ConfVar) -> String {
    let store = session.store();
    let options = store.options();
    let settings = session.settings();
    let listening = session.listening();
    let time = |duration| {
        let unit = metastore_conf::time_unit(var.default).unwrap_or("s");
        metastore_conf::format_duration(duration, unit)
    };
    match var.name {
        "metastore.warehouse.dir" => options.warehouse_root.clone(),
        "metastore.catalog.default" => DEFAULT_CATALOG_NAME.to_string(),
        "metastore.default.partition.name" => DEFAULT_PARTITION_NAME.to_string(),
        "metastore.txn.timeout" => time(options.txn_timeout),
        metastore_conf::DISALLOW_INCOMPATIBLE_COL_TYPE_CHANGES => {
            options.disallow_incompatible_col_type_changes.to_string()
        }
        "metastore.event.db.listener.timetolive" => time(settings.event_ttl),
        "metastore.event.db.listener.clean.interval" => time(settings.event_clean_interval),
        "metastore.limit.partition.request" => settings
            .limit_partition_request
            .map_or_else(|| "-1".to_string(), |limit| limit.to_string()),
        "metastore.thrift.port" => {
            listening.map_or_else(|| hive_default(var), |l| l.port.to_string())
        }
        "metastore.server.max.message.size" => listening.map_or_else(
            || hive_default(var),
            |l| l.limits.message_bytes_max.to_string(),
        ),
        // Hive serves a connection with a thread of its own: its thread cap is the connection cap.
        "metastore.server.max.threads" => listening.map_or_else(
            || hive_default(var),
            |l| l.limits.connections_max.to_string(),
        ),
        "metastore.use.SSL" => listening.map_or_else(|| hive_default(var), |l| l.tls.to_string()),
        "metastore.transactional.event.listeners" => NOTIFICATION_LISTENER.to_string(),
        "metastore.event.message.factory" => MESSAGE_ENCODER.to_string(),
        "metastore.event.db.notification.api.auth" => "false".to_string(),
        "metastore.stats.fetch.bitvector" | "metastore.stats.fetch.kll" => {
            settings.stats_fetch_sketches.to_string()
        }
        _ => hive_default(var),
    }
}

/// Hive's default text of `var`, with the user name its defaults name filled in.
fn hive_default(var: &ConfVar) -> String {
    const USER_NAME: &str = "${system:user.name}";
    if var.default.contains(USER_NAME) {
        let user = std::env::var("USER").unwrap_or_else(|_| "hive".to_string());
        return var.default.replace(USER_NAME, &user);
    }
    var.default.to_string()
}

/// `getMetaConf(key)`: a variable of Hive's `setMetaConf` list, by the name given: the
/// connection's own value if it set one under that name, else the server's.
pub fn get_meta_conf(session: &Session, key: String) -> thrift::Result<String> {
    session.authorize(Need::Anyone, Target::Server)?;
    let var = metastore_conf::find_meta_conf(&key).ok_or_else(|| invalid_key(&key))?;
    if let Some(value) = session.meta_conf_override(&key) {
        return Ok(value);
    }
    Ok(server_value(session, var))
}

/// `setMetaConf(key, value)`: sets a variable of Hive's list for this connection only, under
/// the name given (as Hive's per-connection configuration does). Times are checked as Hive
/// checks them. `metastore.disallow.incompatible.col.type.changes` then governs this
/// connection's `alter_table` calls; the other variables of the list are kept for
/// `getMetaConf` only (hivestore has no SQL, no client capabilities, no expression proxy).
pub fn set_meta_conf(session: &Session, key: String, value: String) -> thrift::Result<()> {
    session.authorize(Need::Anyone, Target::Server)?;
    let var = metastore_conf::find_meta_conf(&key).ok_or_else(|| invalid_key(&key))?;
    if metastore_conf::time_unit(var.default).is_some() {
        metastore_conf::check_time_value(&value).map_err(|reason| {
            exception(
                Declared::Meta,
                format!("Invalid configuration value {value} for key {key} by {reason}"),
            )
        })?;
    }
    session.set_meta_conf_override(key, value);
    Ok(())
}

/// This connection's value of the boolean `var`, read as Hive's `MetastoreConf.getBoolVar`
/// reads a connection's configuration: under its `metastore.*` name first (anything but
/// `true` is false), then under its Hive name (`true` or `false`; anything else counts as
/// unset); `None` when the connection set neither.
pub(crate) fn meta_conf_bool(session: &Session, var: &ConfVar) -> Option<bool> {
    if let Some(value) = session.meta_conf_override(var.name) {
        return Some(value.eq_ignore_ascii_case("true"));
    }
    let value = session.meta_conf_override(var.hive_name)?;
    match value.trim().to_ascii_lowercase().as_str() {
        "true" => Some(true),
        "false" => Some(false),
        _ => None,
    }
}

fn invalid_key(key: &str) -> thrift::Error {
    exception(Declared::Meta, format!("Invalid configuration key {key}"))
}

/// `get_metastore_db_uuid`: the UUID the store was given when it was created.
pub fn metastore_db_uuid(session: &Session) -> thrift::Result<String> {
    session.authorize(Need::Anyone, Target::Server)?;
    session
        .store()
        .metastore_db_uuid()
        .map_err(|error| to_thrift(error, &[Declared::Meta]))
}
