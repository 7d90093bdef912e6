//! How long the names and values of stored objects may be.
//!
//! Hive's metastore schema bounds them by its columns (Hive 4's scripts); a value over its
//! column fails Hive's insert. hivestore refuses it with `InvalidObject`, naming the field, the
//! limit and the length, before anything is written: a value stored once is sent in every
//! listing of its object, so a 90 MB parameter would make each `get_partitions` of its table a
//! reply clients refuse.
//!
//! Names and locations have Hive's fixed widths. Parameter values, comments and type names,
//! which Hive keeps in wider columns (`CLOB`/`MEDIUMTEXT`, `varchar(4000)`), take configurable
//! limits ([`ValueLimits`]).

use crate::error::{Error, Result};
use crate::model::partition_name::make_partition_name;
use crate::model::table::{FieldSchema, SerDeInfo, StorageDescriptor, Table};
use crate::stats::{ColumnStatistics, StatsValue};

/// `DBS.NAME varchar(128)`.
pub const DATABASE_NAME_LEN_MAX: usize = 128;
/// `COLUMNS_V2.COLUMN_NAME varchar(767)`.
pub const COLUMN_NAME_LEN_MAX: usize = 767;
/// `PARTITION_KEYS.PKEY_NAME varchar(128)`.
pub const PARTITION_KEY_NAME_LEN_MAX: usize = 128;
/// `PARTITION_KEY_VALS.PART_KEY_VAL varchar(256)`.
pub const PARTITION_VALUE_LEN_MAX: usize = 256;
/// `PARTITIONS.PART_NAME varchar(767)`: the escaped `k=v/...` name.
pub const PARTITION_NAME_LEN_MAX: usize = 767;
/// `*_PARAMS.PARAM_KEY varchar(256)` (`DATABASE_PARAMS` has 180; one bound for all).
pub const PARAMETER_KEY_LEN_MAX: usize = 256;
/// `SDS.LOCATION`, `DBS.DB_LOCATION_URI`, `CTLGS.LOCATION_URI`, `SDS.INPUT_FORMAT`,
/// `SERDES.SLIB`, ...: `varchar(4000)`.
pub const LOCATION_LEN_MAX: usize = 4000;
/// `SERDES.NAME varchar(128)`.
pub const SERDE_NAME_LEN_MAX: usize = 128;
/// `TBLS.OWNER varchar(767)`.
pub const TABLE_OWNER_LEN_MAX: usize = 767;
/// `DBS.OWNER_NAME varchar(128)`.
pub const DATABASE_OWNER_LEN_MAX: usize = 128;
/// `TBLS.TBL_TYPE varchar(128)`.
pub const TABLE_TYPE_LEN_MAX: usize = 128;
/// `TBLS.VIEW_ORIGINAL_TEXT` and `VIEW_EXPANDED_TEXT`: MySQL's `MEDIUMTEXT`, the narrowest of
/// Hive's schemas for them; far above any view a planner writes.
pub const VIEW_TEXT_LEN_MAX: usize = (1 << 24) - 1;

/// `TAB_COL_STATS.COLUMN_TYPE`, `PART_COL_STATS.COLUMN_TYPE`: `varchar(128)`.
pub const STATS_COLUMN_TYPE_LEN_MAX: usize = 128;
/// `TAB_COL_STATS.ENGINE`, `PART_COL_STATS.ENGINE`: `varchar(128)`.
pub const STATS_ENGINE_LEN_MAX: usize = 128;
/// `BIG_DECIMAL_LOW_VALUE`, `BIG_DECIMAL_HIGH_VALUE`: `varchar(4000)`, the decimal as text;
/// its unscaled bytes are fewer than its digits, so this bounds them generously.
pub const STATS_DECIMAL_LEN_MAX: usize = 4000;

/// Default of [`ValueLimits::stats_sketch_bytes_max`]: Hive keeps a column's NDV sketch
/// (`BIT_VECTOR`) and histogram (`HISTOGRAM`) as `BLOB`s; its HyperLogLog sketches take at
/// most 48 KiB and its KLL histograms a few, so 1 MiB refuses only what no writer makes.
pub const STATS_SKETCH_BYTES_MAX_DEFAULT: usize = 1 << 20;

/// Default of [`ValueLimits::parameter_value_bytes_max`]: Derby's widest `VARCHAR`, which
/// Iceberg's Hive catalog also caps the table parameters it writes to
/// (`iceberg.hive.table-property-max-size`).
pub const PARAMETER_VALUE_BYTES_MAX_DEFAULT: usize = 32_672;
/// Default of [`ValueLimits::comment_bytes_max`]: `COLUMNS_V2.COMMENT`,
/// `PARTITION_KEYS.PKEY_COMMENT`, `DBS.DESC`, `CTLGS.DESC`, all `varchar(4000)`.
pub const COMMENT_BYTES_MAX_DEFAULT: usize = 4000;
/// Default of [`ValueLimits::type_name_bytes_max`]: Hive widened `COLUMNS_V2.TYPE_NAME` past
/// `varchar(4000)` to `CLOB`/`MEDIUMTEXT` for the nested types of wide schemas; 1 MiB holds
/// those and keeps a table's columns far below a message.
pub const TYPE_NAME_BYTES_MAX_DEFAULT: usize = 1 << 20;

/// Default of [`ValueLimits::parameters_bytes_max`]: room for the widest schemas that Spark
/// keeps in table parameters (4,000-byte pieces), while one object's parameters stay far
/// below a message.
pub const PARAMETERS_BYTES_MAX_DEFAULT: usize = 4 << 20;

/// The configurable bounds on stored values, in bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ValueLimits {
    /// One parameter value of a database, table, partition, storage descriptor or serde.
    pub parameter_value_bytes_max: usize,
    /// A column's or partition key's comment, a database's or catalog's description.
    pub comment_bytes_max: usize,
    /// A column's or partition key's type name.
    pub type_name_bytes_max: usize,
    /// All keys and values of one object's parameters together.
    pub parameters_bytes_max: usize,
    /// A column statistic's NDV sketch (bit vector) or histogram.
    pub stats_sketch_bytes_max: usize,
}

impl Default for ValueLimits {
    fn default() -> Self {
        ValueLimits {
            parameter_value_bytes_max: PARAMETER_VALUE_BYTES_MAX_DEFAULT,
            comment_bytes_max: COMMENT_BYTES_MAX_DEFAULT,
            type_name_bytes_max: TYPE_NAME_BYTES_MAX_DEFAULT,
            parameters_bytes_max: PARAMETERS_BYTES_MAX_DEFAULT,
            stats_sketch_bytes_max: STATS_SKETCH_BYTES_MAX_DEFAULT,
        }
    }
}

/// Refuses `value` longer than `max` bytes; `what` names the field, `setting` the setting
/// that raises the limit, if one does.
fn check_len(
    what: impl FnOnce() -> String,
    value: &(impl AsRef<[u8]> + ?Sized),
    max: usize,
    setting: &str,
) -> Result<()> {
    let value = value.as_ref();
    if value.len() <= max {
        return Ok(());
    }
    let setting = if setting.is_empty() {
        String::new()
    } else {
        format!(" (setting {setting})")
    };
    Err(Error::InvalidObject(format!(
        "{} is {} bytes, longer than the {max} bytes allowed{setting}",
        what(),
        value.len()
    )))
}

fn check_optional(
    what: impl FnOnce() -> String,
    value: &Option<String>,
    max: usize,
    setting: &str,
) -> Result<()> {
    match value {
        Some(value) => check_len(what, value, max, setting),
        None => Ok(()),
    }
}

impl ValueLimits {
    /// Checks the keys and values of `parameters` of `owner` ("table parameter").
    pub(crate) fn check_parameters<'a>(
        &self,
        owner: &str,
        parameters: impl IntoIterator<Item = (&'a String, &'a String)>,
    ) -> Result<()> {
        let mut total = 0usize;
        for (key, value) in parameters {
            check_len(|| format!("{owner} key"), key, PARAMETER_KEY_LEN_MAX, "")?;
            check_len(
                || format!("{owner} '{key}'"),
                value,
                self.parameter_value_bytes_max,
                "max_param_value_bytes",
            )?;
            total = total.saturating_add(key.len() + value.len());
            if total > self.parameters_bytes_max {
                return Err(Error::InvalidObject(format!(
                    "{owner}s are over {} bytes together, more than allowed \
                     (setting max_params_bytes)",
                    self.parameters_bytes_max
                )));
            }
        }
        Ok(())
    }

    /// Checks column statistics written for `engine`: their column names and types, decimal
    /// bounds, sketches and histograms.
    pub(crate) fn check_statistics<'a>(
        &self,
        engine: &str,
        stats: impl IntoIterator<Item = &'a ColumnStatistics>,
    ) -> Result<()> {
        check_len(
            || "statistics engine".into(),
            engine,
            STATS_ENGINE_LEN_MAX,
            "",
        )?;
        for stat in stats {
            let column = stat.column_name.as_str();
            check_len(
                || "statistics column name".into(),
                column,
                COLUMN_NAME_LEN_MAX,
                "",
            )?;
            let what = |field: &str| format!("column '{column}' statistics {field}");
            let column_type = stat.column_type.as_str();
            check_len(|| what("type"), column_type, STATS_COLUMN_TYPE_LEN_MAX, "")?;
            for bound in [&stat.low_value, &stat.high_value].into_iter().flatten() {
                if let StatsValue::Decimal(decimal) = bound {
                    let unscaled = &decimal.unscaled;
                    check_len(
                        || what("decimal bound"),
                        unscaled,
                        STATS_DECIMAL_LEN_MAX,
                        "",
                    )?;
                }
            }
            let sketches = [
                ("bit vector", &stat.bit_vectors),
                ("histogram", &stat.histogram),
            ];
            for (field, sketch) in sketches {
                if let Some(sketch) = sketch {
                    check_len(
                        || what(field),
                        sketch,
                        self.stats_sketch_bytes_max,
                        "max_stats_sketch_bytes",
                    )?;
                }
            }
        }
        Ok(())
    }

    /// Checks a database's or catalog's description.
    pub(crate) fn check_description(
        &self,
        owner: &str,
        description: &Option<String>,
    ) -> Result<()> {
        let what = || format!("{owner} description");
        check_optional(
            what,
            description,
            self.comment_bytes_max,
            "max_comment_bytes",
        )
    }

    /// Checks columns (`kind` "column" or "partition key").
    fn check_columns(&self, kind: &str, name_max: usize, columns: &[FieldSchema]) -> Result<()> {
        for column in columns {
            check_len(|| format!("{kind} name"), &column.name, name_max, "")?;
            let name = &column.name;
            check_len(
                || format!("{kind} '{name}' type"),
                &column.type_name,
                self.type_name_bytes_max,
                "max_type_name_bytes",
            )?;
            check_optional(
                || format!("{kind} '{name}' comment"),
                &column.comment,
                self.comment_bytes_max,
                "max_comment_bytes",
            )?;
        }
        Ok(())
    }

    /// Checks a storage descriptor of `owner` ("table", "partition").
    pub(crate) fn check_descriptor(&self, owner: &str, sd: &StorageDescriptor) -> Result<()> {
        self.check_columns("column", COLUMN_NAME_LEN_MAX, &sd.cols)?;
        check_location(owner, &sd.location)?;
        let format = |field: &str| format!("{owner} {field}");
        check_optional(
            || format("input format"),
            &sd.input_format,
            LOCATION_LEN_MAX,
            "",
        )?;
        check_optional(
            || format("output format"),
            &sd.output_format,
            LOCATION_LEN_MAX,
            "",
        )?;
        self.check_parameters(&format!("{owner} storage parameter"), &sd.parameters)?;
        if let Some(serde) = &sd.serde_info {
            self.check_serde(owner, serde)?;
        }
        Ok(())
    }

    fn check_serde(&self, owner: &str, serde: &SerDeInfo) -> Result<()> {
        let what = |field: &str| format!("{owner} serde {field}");
        check_optional(|| what("name"), &serde.name, SERDE_NAME_LEN_MAX, "")?;
        let library = &serde.serialization_lib;
        check_optional(|| what("library"), library, LOCATION_LEN_MAX, "")?;
        self.check_parameters(&what("parameter"), &serde.parameters)
    }

    /// Checks a table to be created or stored by an alter (its name is checked by Hive's name
    /// rules).
    pub(crate) fn check_table(&self, table: &Table) -> Result<()> {
        check_optional(
            || "table owner".into(),
            &table.owner,
            TABLE_OWNER_LEN_MAX,
            "",
        )?;
        check_optional(
            || "table type".into(),
            &table.table_type,
            TABLE_TYPE_LEN_MAX,
            "",
        )?;
        let original = &table.view_original_text;
        check_optional(
            || "view original text".into(),
            original,
            VIEW_TEXT_LEN_MAX,
            "",
        )?;
        let expanded = &table.view_expanded_text;
        check_optional(
            || "view expanded text".into(),
            expanded,
            VIEW_TEXT_LEN_MAX,
            "",
        )?;
        self.check_parameters("table parameter", &table.parameters)?;
        let keys = &table.partition_keys;
        self.check_columns("partition key", PARTITION_KEY_NAME_LEN_MAX, keys)?;
        match &table.sd {
            Some(sd) => self.check_descriptor("table", sd),
            None => Ok(()),
        }
    }

    /// Checks a partition's values and name, for the table's `keys`.
    pub(crate) fn check_partition_values(
        &self,
        keys: &[FieldSchema],
        values: &[String],
    ) -> Result<()> {
        let mut name_len_bound = 0;
        for (value, key) in values.iter().zip(keys) {
            let what = || format!("partition value of key '{}'", key.name);
            check_len(what, value, PARTITION_VALUE_LEN_MAX, "")?;
            // An escaped character takes three bytes; `k=` and `/` one each.
            name_len_bound += key.name.len() * 3 + value.len() * 3 + 2;
        }
        if name_len_bound > PARTITION_NAME_LEN_MAX {
            let names: Vec<&str> = keys.iter().map(|key| key.name.as_str()).collect();
            let name = make_partition_name(&names, values);
            check_len(
                || "partition name".to_string(),
                &name,
                PARTITION_NAME_LEN_MAX,
                "",
            )?;
        }
        Ok(())
    }
}

/// Checks a database's owner name.
pub(crate) fn check_database_owner(owner: &Option<String>) -> Result<()> {
    check_optional(
        || "database owner".into(),
        owner,
        DATABASE_OWNER_LEN_MAX,
        "",
    )
}

/// Checks a location of `owner`.
/// The longest data connector name and remote database name a remote database may carry
/// (`DBS.DATACONNECTOR_NAME`, `DBS.REMOTE_DBNAME varchar(128)`).
pub const REMOTE_NAME_LEN_MAX: usize = 128;

/// Refuses a database's connector or remote database name longer than Hive's columns.
pub(crate) fn check_remote_names(database: &crate::model::database::Database) -> Result<()> {
    let connector = &database.connector_name;
    check_optional(
        || "database connector name".into(),
        connector,
        REMOTE_NAME_LEN_MAX,
        "",
    )?;
    let remote = &database.remote_database_name;
    check_optional(
        || "remote database name".into(),
        remote,
        REMOTE_NAME_LEN_MAX,
        "",
    )
}

pub(crate) fn check_location(owner: &str, location: &Option<String>) -> Result<()> {
    check_optional(
        || format!("{owner} location"),
        location,
        LOCATION_LEN_MAX,
        "",
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn message(result: Result<()>) -> String {
        match result {
            Err(Error::InvalidObject(message)) => message,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn each_bound_names_the_field_the_limit_and_the_length() {
        let limits = ValueLimits::default();
        let big = "v".repeat(90 << 20);
        let parameters = [("k".to_string(), big.clone())];
        let error = limits.check_parameters(
            "partition parameter",
            parameters.iter().map(|(k, v)| (k, v)),
        );
        assert_eq!(
            message(error),
            "partition parameter 'k' is 94371840 bytes, longer than the 32672 bytes allowed \
             (setting max_param_value_bytes)"
        );
        let many: Vec<(String, String)> = (0..200)
            .map(|i| (format!("k{i}"), "v".repeat(30_000)))
            .collect();
        let error = limits.check_parameters("table parameter", many.iter().map(|(k, v)| (k, v)));
        assert_eq!(
            message(error),
            "table parameters are over 4194304 bytes together, more than allowed \
             (setting max_params_bytes)"
        );
        let key = [("k".repeat(257), String::new())];
        let error = limits.check_parameters("table parameter", key.iter().map(|(k, v)| (k, v)));
        assert_eq!(
            message(error),
            "table parameter key is 257 bytes, longer than the 256 bytes allowed"
        );
        let column = |name: &str, type_name: &str, comment: Option<&str>| FieldSchema {
            name: name.to_string(),
            type_name: type_name.to_string(),
            comment: comment.map(str::to_string),
        };
        let sd = |cols| StorageDescriptor {
            cols,
            ..StorageDescriptor::default()
        };
        let error =
            limits.check_descriptor("table", &sd(vec![column("c", "int", Some(&big[..4001]))]));
        assert_eq!(
            message(error),
            "column 'c' comment is 4001 bytes, longer than the 4000 bytes allowed \
             (setting max_comment_bytes)"
        );
        let long_type = format!("struct<{}:int>", "f".repeat(1 << 20));
        let error = limits.check_descriptor("table", &sd(vec![column("c", &long_type, None)]));
        assert!(
            message(error).starts_with("column 'c' type is 1048588 bytes, longer than the 1048576")
        );
        let error = limits.check_descriptor("table", &sd(vec![column(&big[..768], "int", None)]));
        assert_eq!(
            message(error),
            "column name is 768 bytes, longer than the 767 bytes allowed"
        );
        let keys = [column("ds", "string", None), column("hr", "string", None)];
        let error = limits.check_partition_values(&keys, &["x".into(), big[..257].into()]);
        assert_eq!(
            message(error),
            "partition value of key 'hr' is 257 bytes, longer than the 256 bytes allowed"
        );
        // 256 bytes a value, each escaped to three: the name is over 767.
        let error = limits.check_partition_values(&keys, &["/".repeat(200), "/".repeat(200)]);
        assert_eq!(
            message(error),
            "partition name is 1207 bytes, longer than the 767 bytes allowed"
        );
        assert!(limits
            .check_partition_values(&keys, &["2024-01-01".into(), "7".into()])
            .is_ok());
        let error = limits.check_description("database", &Some(big[..4001].to_string()));
        assert!(message(error).starts_with("database description is 4001 bytes"));
        let table = |change: fn(&mut Table, String)| {
            let mut table = Table::default();
            change(&mut table, big[..(1 << 24)].to_string());
            message(limits.check_table(&table))
        };
        assert_eq!(
            table(|table, long| table.owner = Some(long[..768].to_string())),
            "table owner is 768 bytes, longer than the 767 bytes allowed"
        );
        assert_eq!(
            table(|table, long| table.table_type = Some(long[..129].to_string())),
            "table type is 129 bytes, longer than the 128 bytes allowed"
        );
        assert_eq!(
            table(|table, long| table.view_expanded_text = Some(long)),
            "view expanded text is 16777216 bytes, longer than the 16777215 bytes allowed"
        );
        assert!(table(|table, long| table.view_original_text = Some(long))
            .starts_with("view original text is 16777216 bytes"));
    }
}
