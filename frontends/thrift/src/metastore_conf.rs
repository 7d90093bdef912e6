//! Hive 4's configuration variables (`MetastoreConf.ConfVars`) as `get_config_value` and
//! `getMetaConf` answer them: the values hivestore really has, else Hive's defaults.
//!
//! The variables and their defaults are data (`metastore_conf.tsv`): each has a `metastore.*`
//! name and a `hive.*` alias, answered alike, and a default in the text Hive's
//! `MetastoreConf.get` prints (`300s` for a time in seconds).

use std::collections::HashMap;
use std::sync::OnceLock;
use std::time::Duration;

/// One configuration variable.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ConfVar {
    /// Its `metastore.*` name (some keep a `hive.*` or `datanucleus.*` one).
    pub name: &'static str,
    /// Its Hive name.
    pub hive_name: &'static str,
    /// Hive's default, as Hive prints it.
    pub default: &'static str,
}

const TABLE: &str = include_str!("metastore_conf.tsv");

/// Every variable, in Hive's order.
pub fn all() -> &'static [ConfVar] {
    static VARS: OnceLock<Vec<ConfVar>> = OnceLock::new();
    VARS.get_or_init(|| {
        TABLE
            .lines()
            .filter(|line| !line.is_empty() && !line.starts_with('#'))
            .filter_map(|line| {
                let mut fields = line.splitn(3, '\t');
                Some(ConfVar {
                    name: fields.next()?,
                    hive_name: fields.next()?,
                    default: fields.next()?,
                })
            })
            .collect()
    })
}

/// The variable `key` names, by either name. Where two variables share a name the later
/// one wins, as in Hive's lookup map.
pub fn find(key: &str) -> Option<&'static ConfVar> {
    static BY_NAME: OnceLock<HashMap<&'static str, &'static ConfVar>> = OnceLock::new();
    let by_name = BY_NAME.get_or_init(|| {
        let mut map = HashMap::new();
        for var in all() {
            map.insert(var.name, var);
            map.insert(var.hive_name, var);
        }
        map
    });
    by_name.get(key).copied()
}

/// The variable that lets a connection allow incompatible column type changes in
/// `alter_table`.
pub const DISALLOW_INCOMPATIBLE_COL_TYPE_CHANGES: &str =
    "metastore.disallow.incompatible.col.type.changes";

/// The variables a client may change for its connection with `setMetaConf` (Hive's
/// `metaConfVars`), by their `metastore.*` names.
pub const META_CONF_VARS: [&str; 8] = [
    "metastore.try.direct.sql",
    "metastore.try.direct.sql.ddl",
    "metastore.client.socket.timeout",
    "metastore.partition.name.whitelist.pattern",
    "metastore.partition.order.expr",
    "metastore.client.capability.check",
    DISALLOW_INCOMPATIBLE_COL_TYPE_CHANGES,
    "metastore.expression.proxy",
];

/// The `setMetaConf` variable `key` names, by either name.
pub fn find_meta_conf(key: &str) -> Option<&'static ConfVar> {
    find(key).filter(|var| META_CONF_VARS.contains(&var.name))
}

/// Keys whose values are secrets: Hive's `unprintables` (the database, keystore, truststore
/// and ZooKeeper passwords) and the other passwords and client secrets its configuration
/// holds. hivestore refuses to answer them.
pub fn is_secret(key: &str) -> bool {
    const SECRETS: [&str; 9] = [
        "javax.jdo.option.ConnectionPassword",
        "metastore.keystore.password",
        "metastore.truststore.password",
        "metastore.dbaccess.ssl.truststore.password",
        "metastore.zookeeper.ssl.keystore.password",
        "metastore.zookeeper.ssl.truststore.password",
        "metastore.authentication.ldap.bindpw",
        "metastore.authentication.config.password",
        "metastore.catalog.servlet.auth.oauth2.client.secret",
    ];
    find(key).is_some_and(|var| SECRETS.contains(&var.name))
}

/// The suffix of Hive's text for a time in `default`'s unit (`s` of `300s`), if it is one.
pub fn time_unit(default: &str) -> Option<&'static str> {
    let digits = default.trim_end_matches(|c: char| c.is_ascii_alphabetic());
    if digits.is_empty() || !digits.bytes().all(|byte| byte.is_ascii_digit()) {
        return None;
    }
    ["ns", "us", "ms", "s", "m", "h", "d"]
        .into_iter()
        .find(|unit| &default[digits.len()..] == *unit)
}

/// `duration` in Hive's text for a time variable whose default is in `unit`: in that unit
/// when it divides exactly, else in seconds or milliseconds.
pub fn format_duration(duration: Duration, unit: &str) -> String {
    let nanos = duration.as_nanos();
    let per_unit: u128 = match unit {
        "ns" => 1,
        "us" => 1_000,
        "ms" => 1_000_000,
        "s" => 1_000_000_000,
        "m" => 60_000_000_000,
        "h" => 3_600_000_000_000,
        _ => 86_400_000_000_000,
    };
    if nanos.is_multiple_of(per_unit) {
        return format!("{}{unit}", nanos / per_unit);
    }
    if nanos.is_multiple_of(1_000_000_000) {
        return format!("{}s", duration.as_secs());
    }
    format!("{}ms", duration.as_millis())
}

/// Hive's `convertTimeStr` check of a time value: digits, with a unit or without (then the
/// variable's own). The error is Hive's message.
pub fn check_time_value(value: &str) -> Result<(), String> {
    let Some(last) = value.chars().last() else {
        return Err("an empty time".to_string());
    };
    if last < 'A' {
        return value
            .parse::<i64>()
            .map(|_| ())
            .map_err(|_| format!("For input string: \"{value}\""));
    }
    let digits = value.trim_end_matches(|c: char| c.is_ascii_alphabetic());
    let unit = &value[digits.len()..];
    if digits.is_empty() || !digits.bytes().all(|byte| byte.is_ascii_digit()) {
        return Err(format!("Invalid time unit {value}"));
    }
    let unit = unit.to_lowercase();
    let known = [
        ("s", "sec"),
        ("ms", "msec"),
        ("m", "min"),
        ("us", "usec"),
        ("ns", "nsec"),
        ("h", "hour"),
        ("d", "day"),
    ];
    if known
        .iter()
        .any(|(short, long)| unit == *short || unit.starts_with(long))
    {
        Ok(())
    } else {
        Err(format!("Invalid time unit {unit}"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_holds_hive_4s_variables_under_both_names() {
        assert!(all().len() > 400);
        let txn = find("metastore.txn.timeout").unwrap();
        assert_eq!(find("hive.txn.timeout"), Some(txn));
        assert_eq!(txn.default, "300s");
        assert_eq!(
            find("hive.metastore.warehouse.dir").unwrap().default,
            "/user/hive/warehouse"
        );
        assert_eq!(find("metastore.catalog.default").unwrap().default, "hive");
        assert_eq!(
            find("hive.exec.default.partition.name").unwrap().default,
            "__HIVE_DEFAULT_PARTITION__"
        );
        assert_eq!(
            find("metastore.event.db.listener.timetolive")
                .unwrap()
                .default,
            "1d"
        );
        assert_eq!(find("metastore.batch.retrieve.max").unwrap().default, "300");
        assert_eq!(find("hive.metastore.dml.events"), None, "a HiveConf key");
        // Two variables share this name in Hive; the later one answers.
        assert_eq!(
            find("metastore.metrics.hadoop2.component").unwrap().default,
            "30s"
        );
        for var in all() {
            assert!(!var.name.is_empty() && !var.hive_name.is_empty(), "{var:?}");
        }
    }

    #[test]
    fn meta_conf_vars_and_secrets() {
        assert_eq!(
            find_meta_conf("hive.metastore.try.direct.sql")
                .unwrap()
                .name,
            "metastore.try.direct.sql"
        );
        assert!(find_meta_conf("metastore.txn.timeout").is_none());
        assert!(META_CONF_VARS.iter().all(|name| find(name).is_some()));
        assert!(is_secret("hive.metastore.keystore.password"));
        assert!(is_secret("metastore.truststore.password"));
        assert!(!is_secret("metastore.keystore.path"));
    }

    #[test]
    fn times_print_and_check_as_hive() {
        assert_eq!(time_unit("300s"), Some("s"));
        assert_eq!(time_unit("1000ms"), Some("ms"));
        assert_eq!(time_unit("1Gb"), None);
        assert_eq!(time_unit("300"), None);
        assert_eq!(format_duration(Duration::from_secs(300), "s"), "300s");
        assert_eq!(format_duration(Duration::from_secs(86_400), "d"), "1d");
        assert_eq!(format_duration(Duration::from_secs(90), "m"), "90s");
        assert_eq!(format_duration(Duration::from_millis(1_500), "s"), "1500ms");
        assert!(check_time_value("600").is_ok());
        assert!(check_time_value("600s").is_ok());
        assert!(check_time_value("10min").is_ok());
        assert_eq!(check_time_value("10x").unwrap_err(), "Invalid time unit x");
        assert_eq!(
            check_time_value("abc").unwrap_err(),
            "Invalid time unit abc"
        );
        assert_eq!(
            check_time_value("1.5").unwrap_err(),
            "For input string: \"1.5\""
        );
    }
}
