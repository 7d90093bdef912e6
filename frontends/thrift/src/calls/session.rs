//! Calls clients make around their real work: `get_config_value`, `get_all_functions`.

use hivestore_idl::hive_metastore::{ConfigValSecurityException, GetAllFunctionsResponse};

use crate::service::Session;

/// Hive exposes only keys under these prefixes through `get_config_value`.
const READABLE_PREFIXES: &[&str] = &["hive", "hdfs", "mapred", "metastore"];
/// The name Hive gives a partition whose key value is null or empty.
pub const DEFAULT_PARTITION_NAME: &str = "__HIVE_DEFAULT_PARTITION__";

/// `get_config_value`: the values hivestore has (the warehouse root, the default partition
/// name), the caller's default for other readable keys, and Hive's security exception for
/// keys outside `hive.*`, `hdfs.*`, `mapred.*`, `metastore.*`.
pub fn config_value(
    session: &Session,
    name: String,
    default_value: String,
) -> thrift::Result<String> {
    if !READABLE_PREFIXES
        .iter()
        .any(|prefix| name.starts_with(prefix))
    {
        let message = format!("For security reasons, the config key {name} cannot be accessed");
        return Err(thrift::Error::User(Box::new(ConfigValSecurityException {
            message: Some(message),
        })));
    }
    let value = match name.as_str() {
        "hive.metastore.warehouse.dir" | "metastore.warehouse.dir" => {
            session.store().options().warehouse_root.clone()
        }
        "hive.exec.default.partition.name" | "metastore.default.partition.name" => {
            DEFAULT_PARTITION_NAME.to_string()
        }
        _ => default_value,
    };
    Ok(value)
}

/// `get_all_functions`: hivestore stores no functions yet, so there are none to list.
pub fn all_functions() -> GetAllFunctionsResponse {
    GetAllFunctionsResponse {
        functions: Some(Vec::new()),
    }
}
