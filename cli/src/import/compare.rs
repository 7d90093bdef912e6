//! What "the same" means between a source object and its copy: each kind of object without the
//! fields its server sets itself (so they differ between any two servers), then compared field
//! by field. The copy skips what compares equal and `--verify` prints what does not, by the
//! same rule.
//!
//! Not compared: creation times (Hive sets them when the object is made, whatever the client
//! sent), the `transient_lastDdlTime` parameter (set on every create and alter), privileges and
//! statistics carried inside tables and partitions (compared on their own), Hive 4's write ids,
//! table ids and access types, and a grant's time. A field that one side leaves unset and the
//! other sets to its default (the catalog `hive`, owner type `USER`, database type `NATIVE`,
//! `false` flags, an empty map) counts as that default.

use std::collections::BTreeMap;
use std::fmt::Debug;

use hivestore_idl::hive_metastore::{
    Catalog, ColumnStatisticsObj, Database, DatabaseType, Function, HiveObjectPrivilege, Partition,
    PrincipalType, StorageDescriptor, Table,
};

use super::reads::DEFAULT_CATALOG;

/// The parameter Hive sets to the time of a table's or partition's last change.
pub const DDL_TIME_PARAMETER: &str = "transient_lastDdlTime";

/// `table` without what its server sets.
pub fn table(mut table: Table) -> Table {
    table.create_time = None;
    table.privileges = None;
    table.col_stats = None;
    table.is_stats_compliant = None;
    table.access_type = None;
    table.required_read_capabilities = None;
    table.required_write_capabilities = None;
    table.id = None;
    table.file_metadata = None;
    table.dictionary = None;
    table.txn_id = None;
    table.write_id = None;
    table.cat_name = catalog(table.cat_name);
    table.owner_type = table.owner_type.or(Some(PrincipalType::USER));
    table.temporary = flag(table.temporary);
    table.rewrite_enabled = flag(table.rewrite_enabled);
    table.parameters = parameters(table.parameters);
    table.sd = table.sd.map(descriptor);
    table.partition_keys = table.partition_keys.filter(|keys| !keys.is_empty());
    table
}

/// `partition` without what its server sets.
pub fn partition(mut partition: Partition) -> Partition {
    partition.create_time = None;
    partition.privileges = None;
    partition.col_stats = None;
    partition.is_stats_compliant = None;
    partition.file_metadata = None;
    partition.write_id = None;
    partition.cat_name = catalog(partition.cat_name);
    partition.parameters = parameters(partition.parameters);
    partition.sd = partition.sd.map(descriptor);
    partition
}

/// `database` without what its server sets.
pub fn database(mut database: Database) -> Database {
    database.create_time = None;
    database.privileges = None;
    database.catalog_name = catalog(database.catalog_name);
    database.owner_type = database.owner_type.or(Some(PrincipalType::USER));
    database.type_ = database.type_.or(Some(DatabaseType::NATIVE));
    database.parameters = parameters(database.parameters);
    database
}

/// `function` without what its server sets.
pub fn function(mut function: Function) -> Function {
    function.create_time = None;
    function.cat_name = catalog(function.cat_name);
    function.resource_uris = function.resource_uris.filter(|uris| !uris.is_empty());
    function
}

/// `catalog` without what its server sets.
pub fn catalog_record(mut catalog: Catalog) -> Catalog {
    catalog.create_time = None;
    catalog
}

/// `privilege` without its grant time and with the default catalog named.
pub fn privilege(mut privilege: HiveObjectPrivilege) -> HiveObjectPrivilege {
    if let Some(grant) = privilege.grant_info.as_mut() {
        grant.create_time = None;
        grant.grant_option = flag(grant.grant_option);
    }
    if let Some(object) = privilege.hive_object.as_mut() {
        object.cat_name = catalog(object.cat_name.take());
        object.part_values = object
            .part_values
            .take()
            .filter(|values| !values.is_empty());
    }
    privilege.authorizer = None;
    privilege
}

/// Column statistics in column order.
pub fn statistics(mut columns: Vec<ColumnStatisticsObj>) -> Vec<ColumnStatisticsObj> {
    columns.sort_by(|a, b| a.col_name.cmp(&b.col_name));
    columns
}

fn descriptor(mut descriptor: StorageDescriptor) -> StorageDescriptor {
    descriptor.parameters = parameters(descriptor.parameters);
    descriptor.compressed = flag(descriptor.compressed);
    descriptor.stored_as_sub_directories = flag(descriptor.stored_as_sub_directories);
    descriptor.bucket_cols = descriptor.bucket_cols.filter(|cols| !cols.is_empty());
    descriptor.sort_cols = descriptor.sort_cols.filter(|cols| !cols.is_empty());
    if let Some(serde) = descriptor.serde_info.as_mut() {
        serde.parameters = parameters(serde.parameters.take());
    }
    if let Some(skewed) = descriptor.skewed_info.as_ref() {
        let empty = skewed.skewed_col_names.as_ref().is_none_or(Vec::is_empty)
            && skewed.skewed_col_values.as_ref().is_none_or(Vec::is_empty)
            && skewed
                .skewed_col_value_location_maps
                .as_ref()
                .is_none_or(BTreeMap::is_empty);
        if empty {
            descriptor.skewed_info = None;
        }
    }
    descriptor
}

fn parameters(parameters: Option<BTreeMap<String, String>>) -> Option<BTreeMap<String, String>> {
    let mut parameters = parameters.unwrap_or_default();
    parameters.remove(DDL_TIME_PARAMETER);
    (!parameters.is_empty()).then_some(parameters)
}

fn catalog(name: Option<String>) -> Option<String> {
    name.filter(|name| name != DEFAULT_CATALOG)
}

fn flag(value: Option<bool>) -> Option<bool> {
    value.filter(|set| *set)
}

/// The differences between two normalised objects, a line per field: `field: source X, copy Y`.
pub fn fields_of<T: Debug>(fields: &[(&str, &T, &T)]) -> Vec<String> {
    fields
        .iter()
        .filter_map(|(name, source, copy)| {
            let (source, copy) = (format!("{source:?}"), format!("{copy:?}"));
            (source != copy).then(|| format!("{name}: source {source}, copy {copy}"))
        })
        .collect()
}

/// Lists, field by field, how two normalised objects of the same IDL struct differ.
macro_rules! field_differences {
    ($source:expr, $copy:expr, [$($field:ident),* $(,)?]) => {{
        let mut lines: Vec<String> = Vec::new();
        $(
            let source = format!("{:?}", $source.$field);
            let copy = format!("{:?}", $copy.$field);
            if source != copy {
                lines.push(format!("{}: source {source}, copy {copy}", stringify!($field)));
            }
        )*
        lines
    }};
}

/// How two normalised tables differ.
pub fn table_differences(source: &Table, copy: &Table) -> Vec<String> {
    let mut lines = field_differences!(
        source,
        copy,
        [
            table_name,
            db_name,
            owner,
            owner_type,
            last_access_time,
            retention,
            partition_keys,
            view_original_text,
            view_expanded_text,
            table_type,
            temporary,
            rewrite_enabled,
            creation_metadata,
            cat_name,
        ]
    );
    lines.extend(descriptor_differences(source.sd.as_ref(), copy.sd.as_ref()));
    lines.extend(parameter_differences(
        "parameters",
        source.parameters.as_ref(),
        copy.parameters.as_ref(),
    ));
    lines
}

/// How two normalised partitions differ.
pub fn partition_differences(source: &Partition, copy: &Partition) -> Vec<String> {
    let mut lines = field_differences!(source, copy, [values, last_access_time, cat_name]);
    lines.extend(descriptor_differences(source.sd.as_ref(), copy.sd.as_ref()));
    lines.extend(parameter_differences(
        "parameters",
        source.parameters.as_ref(),
        copy.parameters.as_ref(),
    ));
    lines
}

/// How two normalised databases differ.
pub fn database_differences(source: &Database, copy: &Database) -> Vec<String> {
    let mut lines = field_differences!(
        source,
        copy,
        [
            name,
            description,
            location_uri,
            owner_name,
            owner_type,
            catalog_name,
            managed_location_uri,
            type_,
            connector_name,
            remote_dbname,
        ]
    );
    lines.extend(parameter_differences(
        "parameters",
        source.parameters.as_ref(),
        copy.parameters.as_ref(),
    ));
    lines
}

/// How two normalised functions differ.
pub fn function_differences(source: &Function, copy: &Function) -> Vec<String> {
    field_differences!(
        source,
        copy,
        [
            function_name,
            db_name,
            class_name,
            owner_name,
            owner_type,
            function_type,
            resource_uris,
            cat_name,
        ]
    )
}

fn descriptor_differences(
    source: Option<&StorageDescriptor>,
    copy: Option<&StorageDescriptor>,
) -> Vec<String> {
    let (Some(source), Some(copy)) = (source, copy) else {
        return fields_of(&[("sd", &source, &copy)]);
    };
    let mut lines: Vec<String> = field_differences!(
        source,
        copy,
        [
            cols,
            location,
            input_format,
            output_format,
            compressed,
            num_buckets,
            serde_info,
            bucket_cols,
            sort_cols,
            skewed_info,
            stored_as_sub_directories,
        ]
    )
    .into_iter()
    .map(|line| format!("sd.{line}"))
    .collect();
    lines.extend(parameter_differences(
        "sd.parameters",
        source.parameters.as_ref(),
        copy.parameters.as_ref(),
    ));
    lines
}

/// Parameters that differ, a line per key.
pub fn parameter_differences(
    what: &str,
    source: Option<&BTreeMap<String, String>>,
    copy: Option<&BTreeMap<String, String>>,
) -> Vec<String> {
    let empty = BTreeMap::new();
    let (source, copy) = (source.unwrap_or(&empty), copy.unwrap_or(&empty));
    let mut keys: Vec<&String> = source.keys().chain(copy.keys()).collect();
    keys.sort();
    keys.dedup();
    keys.into_iter()
        .filter(|key| source.get(*key) != copy.get(*key))
        .map(|key| {
            format!(
                "{what}[{key}]: source {:?}, copy {:?}",
                source.get(key),
                copy.get(key)
            )
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use hivestore_idl::hive_metastore::FieldSchema;

    fn table_with(parameters: &[(&str, &str)], create_time: i32) -> Table {
        Table {
            table_name: Some("t".to_string()),
            db_name: Some("db".to_string()),
            owner: Some("alice".to_string()),
            create_time: Some(create_time),
            last_access_time: Some(0),
            retention: Some(0),
            sd: Some(StorageDescriptor {
                cols: Some(vec![FieldSchema {
                    name: Some("a".to_string()),
                    type_: Some("int".to_string()),
                    comment: None,
                }]),
                location: Some("file:/w/db.db/t".to_string()),
                input_format: None,
                output_format: None,
                compressed: Some(false),
                num_buckets: Some(-1),
                serde_info: None,
                bucket_cols: Some(vec![]),
                sort_cols: Some(vec![]),
                parameters: Some(BTreeMap::new()),
                skewed_info: None,
                stored_as_sub_directories: Some(false),
            }),
            partition_keys: Some(vec![]),
            parameters: Some(
                parameters
                    .iter()
                    .map(|(key, value)| (key.to_string(), value.to_string()))
                    .collect(),
            ),
            view_original_text: None,
            view_expanded_text: None,
            table_type: Some("MANAGED_TABLE".to_string()),
            privileges: None,
            temporary: Some(false),
            rewrite_enabled: None,
            creation_metadata: None,
            cat_name: None,
            owner_type: None,
            write_id: Some(3),
            is_stats_compliant: None,
            col_stats: None,
            access_type: None,
            required_read_capabilities: None,
            required_write_capabilities: None,
            id: Some(17),
            file_metadata: None,
            dictionary: None,
            txn_id: None,
        }
    }

    #[test]
    fn server_set_fields_and_defaults_do_not_count_as_differences() {
        // A Hive 2 source (no catalog, no owner type) against a copy that names the defaults,
        // with its own create time, DDL time, write id and table id.
        let source = table_with(&[("a", "1"), (DDL_TIME_PARAMETER, "100")], 100);
        let mut copy = table_with(&[("a", "1"), (DDL_TIME_PARAMETER, "200")], 200);
        copy.cat_name = Some("hive".to_string());
        copy.owner_type = Some(PrincipalType::USER);
        copy.temporary = None;
        copy.write_id = None;
        copy.id = Some(1);
        copy.sd.as_mut().unwrap().bucket_cols = None;
        let (source, copy) = (table(source), table(copy));
        assert_eq!(table_differences(&source, &copy), Vec::<String>::new());
        assert_eq!(source, copy);
    }

    #[test]
    fn a_changed_parameter_and_location_are_named_with_both_values() {
        let source = table(table_with(&[("a", "1"), ("b", "2")], 1));
        let mut copy = table_with(&[("a", "9")], 1);
        copy.sd.as_mut().unwrap().location = Some("file:/elsewhere".to_string());
        let copy = table(copy);
        assert_eq!(
            table_differences(&source, &copy),
            vec![
                "sd.location: source Some(\"file:/w/db.db/t\"), copy Some(\"file:/elsewhere\")",
                "parameters[a]: source Some(\"1\"), copy Some(\"9\")",
                "parameters[b]: source Some(\"2\"), copy None",
            ]
        );
    }
}
