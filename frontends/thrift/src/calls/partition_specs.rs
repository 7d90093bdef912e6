//! Partitions in Hive's spec form (`PartitionSpec`): `get_partitions_pspec`,
//! `get_part_specs_by_filter` and Hive 3/4's `get_partitions_with_specs`, with its field
//! projection and filter spec.
//!
//! Hive groups partitions that live under the table's directory and share a storage descriptor
//! (formats, serde, columns) into one spec with that descriptor once and a relative path per
//! partition; partitions elsewhere go, whole, into one list spec. `get_partitions_with_specs`
//! always groups; the older calls only when the table's parameter
//! `hive.hcatalog.partition.spec.grouping.enabled` is `true`, else they answer one list spec
//! rooted at the table's location.

use std::collections::BTreeMap;

use hivestore_engine::{PartitionSelection, SqlLikePattern};
use hivestore_idl::hive_metastore::{
    GetPartitionsRequest, GetPartitionsResponse, GetProjectionsSpec, Order, Partition,
    PartitionFilterMode, PartitionListComposingSpec, PartitionSpec, PartitionSpecWithSharedSD,
    PartitionWithoutSD, SerDeInfo, SkewedInfo, StorageDescriptor,
};

use super::partition_listings::{borrowed, Listing};
use super::partitions::{TableName, SELECT};
use crate::errors::{exception, throws, to_thrift, Declared};
use crate::service::Session;

/// The table parameter that makes the old spec calls group partitions.
const GROUPING_PARAMETER: &str = "hive.hcatalog.partition.spec.grouping.enabled";

/// Every field a projection may name, as Hive spells them.
const PROJECTABLE_FIELDS: &[&str] = &[
    "dbName",
    "tableName",
    "catName",
    "createTime",
    "lastAccessTime",
    "writeId",
    "values",
    "parameters",
    "privileges.userPrivileges",
    "privileges.groupPrivileges",
    "privileges.rolePrivileges",
    "sd.location",
    "sd.inputFormat",
    "sd.outputFormat",
    "sd.compressed",
    "sd.numBuckets",
    "sd.serdeInfo.name",
    "sd.serdeInfo.serializationLib",
    "sd.serdeInfo.description",
    "sd.serdeInfo.serializerClass",
    "sd.serdeInfo.deserializerClass",
    "sd.serdeInfo.serdeType",
    "sd.serdeInfo.parameters",
    "sd.cols.name",
    "sd.cols.type",
    "sd.cols.comment",
    "sd.bucketCols",
    "sd.sortCols.col",
    "sd.sortCols.order",
    "sd.parameters",
    "sd.skewedInfo.skewedColNames",
    "sd.skewedInfo.skewedColValues",
    "sd.skewedInfo.skewedColValueLocationMaps",
];

/// Fields Hive accepts but never returns through a projection.
const UNRETURNED_FIELDS: &[&str] = &[
    "sd.serdeInfo.description",
    "sd.serdeInfo.serializerClass",
    "sd.serdeInfo.deserializerClass",
    "sd.serdeInfo.serdeType",
];

/// What a table contributes to its partitions' specs.
pub(crate) struct SpecTable {
    name: TableName,
    location: Option<String>,
    grouping: bool,
    is_view: bool,
}

impl SpecTable {
    /// Looks the table up; a failure becomes one of the `declared` exceptions.
    pub(crate) fn load(
        session: &Session,
        name: TableName,
        declared: &[Declared],
    ) -> thrift::Result<SpecTable> {
        let table = session
            .store()
            .get_table(&name.catalog, &name.database, &name.name)
            .map_err(|error| to_thrift(error, declared))?;
        Ok(SpecTable {
            location: table.sd.as_ref().and_then(|sd| sd.location.clone()),
            grouping: table
                .parameters
                .get(GROUPING_PARAMETER)
                .is_some_and(|value| value.eq_ignore_ascii_case("true")),
            is_view: table.table_type.as_deref() == Some("VIRTUAL_VIEW"),
            name: TableName {
                catalog: table_catalog(&name),
                database: table.db_name,
                name: table.table_name,
            },
        })
    }

    /// A spec naming the table and nothing else (the generated `Default` fills fields Java
    /// leaves unset).
    fn spec(&self) -> PartitionSpec {
        PartitionSpec {
            db_name: Some(self.name.database.clone()),
            table_name: Some(self.name.name.clone()),
            root_path: None,
            shared_s_d_partition_spec: None,
            partition_list: None,
            cat_name: Some(self.name.catalog.clone()),
            write_id: None,
            is_stats_compliant: None,
        }
    }

    /// The old calls' answer: grouped if the table asks for it, else one list spec.
    pub(crate) fn specs(&self, partitions: Vec<Partition>) -> Vec<PartitionSpec> {
        if self.grouping {
            return self.grouped(partitions);
        }
        vec![PartitionSpec {
            root_path: self.location.clone(),
            partition_list: Some(PartitionListComposingSpec {
                partitions: Some(partitions),
            }),
            ..self.spec()
        }]
    }

    /// Partitions grouped by shared storage descriptor, as Hive groups them.
    fn grouped(&self, partitions: Vec<Partition>) -> Vec<PartitionSpec> {
        let table_path = self.location.as_deref();
        let first_buckets = partitions
            .first()
            .and_then(|partition| partition.sd.as_ref())
            .and_then(|sd| sd.num_buckets);
        let mut groups: Vec<(GroupKey, Vec<PartitionWithoutSD>)> = Vec::new();
        let mut outside = Vec::new();
        for partition in partitions {
            let Some(key) = group_key(&partition, table_path, first_buckets) else {
                outside.push(partition);
                continue;
            };
            let relative_path = match (&key.base_location, &partition.sd) {
                (Some(base), Some(sd)) => sd
                    .location
                    .as_ref()
                    .map(|location| location[base.len()..].to_string()),
                _ => None,
            };
            let member = PartitionWithoutSD {
                values: partition.values,
                create_time: partition.create_time,
                last_access_time: partition.last_access_time,
                relative_path,
                parameters: partition.parameters,
                privileges: None,
            };
            match groups.iter_mut().find(|(known, _)| *known == key) {
                Some((_, members)) => members.push(member),
                None => groups.push((key, vec![member])),
            }
        }
        let mut specs: Vec<PartitionSpec> = groups
            .into_iter()
            .map(|(key, members)| {
                let sd = match key.sd {
                    Some(mut sd) => {
                        sd.location = key.base_location;
                        sd
                    }
                    None => empty_descriptor(),
                };
                PartitionSpec {
                    root_path: sd.location.clone(),
                    shared_s_d_partition_spec: Some(PartitionSpecWithSharedSD {
                        partitions: Some(members),
                        sd: Some(sd),
                    }),
                    ..self.spec()
                }
            })
            .collect();
        if !outside.is_empty() {
            specs.push(PartitionSpec {
                partition_list: Some(PartitionListComposingSpec {
                    partitions: Some(outside),
                }),
                ..self.spec()
            });
        }
        specs
    }
}

/// A descriptor with no field set, as Java's `new StorageDescriptor()` goes on the wire.
fn empty_descriptor() -> StorageDescriptor {
    StorageDescriptor {
        cols: None,
        location: None,
        input_format: None,
        output_format: None,
        compressed: None,
        num_buckets: None,
        serde_info: None,
        bucket_cols: None,
        sort_cols: None,
        parameters: None,
        skewed_info: None,
        stored_as_sub_directories: None,
    }
}

fn table_catalog(name: &TableName) -> String {
    name.catalog.trim().to_lowercase()
}

/// What partitions must share to be grouped: where they live (the table's directory, or
/// unknown) and the descriptor's formats, serde and columns. Its `sd` is the first member's.
struct GroupKey {
    base_location: Option<String>,
    sd: Option<StorageDescriptor>,
}

impl PartialEq for GroupKey {
    fn eq(&self, other: &Self) -> bool {
        if self.base_location != other.base_location {
            return false;
        }
        match (&self.sd, &other.sd) {
            (None, None) => true,
            (Some(left), Some(right)) => {
                left.output_format == right.output_format
                    && left.input_format == right.input_format
                    && left.cols == right.cols
                    && left.serde_info == right.serde_info
            }
            _ => false,
        }
    }
}

/// The group of `partition`, or `None` for a partition that keeps its own descriptor (it
/// lives outside the table's directory, has skewed columns or another bucket count).
fn group_key(
    partition: &Partition,
    table_path: Option<&str>,
    first_buckets: Option<i32>,
) -> Option<GroupKey> {
    let Some(sd) = &partition.sd else {
        return Some(GroupKey {
            base_location: None,
            sd: None,
        });
    };
    let skewed = sd
        .skewed_info
        .as_ref()
        .and_then(|info| info.skewed_col_names.as_ref())
        .is_some_and(|names| !names.is_empty());
    let inside = match (&sd.location, table_path) {
        (Some(location), Some(table)) => location.starts_with(table),
        _ => false,
    };
    let base_location = if !skewed && sd.num_buckets == first_buckets && inside {
        table_path.map(str::to_string)
    } else {
        sd.location.clone()
    };
    // Hive groups a descriptor under its own location only when that is the table's or unset.
    if base_location.is_some() && base_location.as_deref() != table_path {
        return None;
    }
    Some(GroupKey {
        base_location,
        sd: Some(sd.clone()),
    })
}

// ---------------------------------------------------------------------------------------------
// get_partitions_with_specs

/// `get_partitions_with_specs`: the partitions its filter spec selects (all without one), with
/// only the fields its projection names, grouped by shared storage descriptor.
pub fn with_specs(
    session: &Session,
    request: GetPartitionsRequest,
) -> thrift::Result<GetPartitionsResponse> {
    let name = TableName::request(
        request.cat_name,
        request.db_name.unwrap_or_default(),
        request.tbl_name.unwrap_or_default(),
    );
    name.authorize(session, SELECT)?;
    let table = SpecTable::load(session, name, &[Declared::Meta])?;
    let projection = Projection::new(request.projection_spec.unwrap_or_default(), table.is_view)?;
    let filter_spec = request.filter_spec.unwrap_or_default();
    let filters = filter_spec.filters.unwrap_or_default();
    let expression;
    let names;
    let selection = match filter_spec.filter_mode {
        None => PartitionSelection::All,
        Some(_) if filters.is_empty() => {
            return Err(meta("Invalid filter expressions in the filter spec"));
        }
        Some(PartitionFilterMode::BY_NAMES) => {
            names = borrowed(&filters);
            PartitionSelection::Names(&names)
        }
        Some(PartitionFilterMode::BY_VALUES) => PartitionSelection::PartialValues(&filters),
        Some(PartitionFilterMode::BY_EXPR) => {
            // Several expressions must all hold.
            expression = filters
                .iter()
                .map(|filter| format!("({filter})"))
                .collect::<Vec<_>>()
                .join(" and ");
            PartitionSelection::Filter(&expression)
        }
        Some(other) => return Err(meta(format!("Unsupported filter mode {}", other.0))),
    };
    let listing = Listing {
        declared: &[Declared::Meta],
        ..Listing::of(table.name.clone(), selection, -1)
    };
    let partitions = listing.list(session)?;
    let partitions = partitions
        .into_iter()
        .map(|partition| projection.apply(partition))
        .collect();
    Ok(GetPartitionsResponse {
        partition_spec: Some(table.grouped(partitions)),
    })
}

fn meta(message: impl Into<String>) -> thrift::Error {
    exception(Declared::Meta, message.into())
}

/// The fields a projection keeps; all of them when its field list is empty.
struct Projection {
    fields: Option<Vec<&'static str>>,
    include_parameters: Option<SqlLikePattern>,
    exclude_parameters: Option<SqlLikePattern>,
}

impl Projection {
    fn new(spec: GetProjectionsSpec, is_view: bool) -> thrift::Result<Projection> {
        let pattern = |what: &str, pattern: Option<String>| {
            pattern
                .filter(|pattern| !pattern.is_empty())
                .map(|pattern| SqlLikePattern::new(what, &pattern))
                .transpose()
                .map_err(|error| to_thrift(error, throws::LIST))
        };
        let include_parameters = pattern("includeParamKeyPattern", spec.include_param_key_pattern)?;
        let exclude_parameters = pattern("excludeParamKeyPattern", spec.exclude_param_key_pattern)?;
        let requested = spec.field_list.unwrap_or_default();
        if requested.is_empty() {
            return Ok(Projection {
                fields: None,
                include_parameters: None,
                exclude_parameters: None,
            });
        }
        let mut fields = Vec::new();
        for field in &requested {
            // A known field, or a prefix standing for every field it starts (`sd` for all of
            // the descriptor's), as Hive expands them.
            let matched: Vec<&'static str> = match PROJECTABLE_FIELDS.iter().find(|f| *f == field) {
                Some(exact) => vec![*exact],
                None => PROJECTABLE_FIELDS
                    .iter()
                    .copied()
                    .filter(|known| known.starts_with(field.as_str()))
                    .collect(),
            };
            if matched.is_empty() {
                return Err(meta(format!("Invalid field name {field}")));
            }
            fields.extend(matched);
        }
        // A view's partitions have no descriptor to return.
        fields.retain(|field| {
            let returned = !UNRETURNED_FIELDS.contains(field);
            returned && !(is_view && field.starts_with("sd."))
        });
        Ok(Projection {
            fields: Some(fields),
            include_parameters,
            exclude_parameters,
        })
    }

    fn has(&self, field: &str) -> bool {
        self.fields
            .as_ref()
            .is_none_or(|fields| fields.contains(&field))
    }

    fn has_under(&self, prefix: &str) -> bool {
        self.fields
            .as_ref()
            .is_none_or(|fields| fields.iter().any(|field| field.starts_with(prefix)))
    }

    fn apply(&self, partition: Partition) -> Partition {
        if self.fields.is_none() {
            return partition;
        }
        let parameters = self
            .keep("parameters", partition.parameters)
            .map(|parameters| {
                parameters
                    .into_iter()
                    .filter(|(key, _)| self.keeps_parameter(key))
                    .collect::<BTreeMap<_, _>>()
            });
        Partition {
            values: self.keep("values", partition.values),
            db_name: self.keep("dbName", partition.db_name),
            table_name: self.keep("tableName", partition.table_name),
            cat_name: self.keep("catName", partition.cat_name),
            create_time: self.keep("createTime", partition.create_time),
            last_access_time: self.keep("lastAccessTime", partition.last_access_time),
            write_id: self.keep("writeId", partition.write_id),
            parameters,
            privileges: partition
                .privileges
                .filter(|_| self.has_under("privileges.")),
            sd: partition.sd.and_then(|sd| self.project_sd(sd)),
            is_stats_compliant: None,
            col_stats: None,
            file_metadata: None,
        }
    }

    fn keep<T>(&self, field: &str, value: Option<T>) -> Option<T> {
        value.filter(|_| self.has(field))
    }

    fn keeps_parameter(&self, key: &str) -> bool {
        let included = self
            .include_parameters
            .as_ref()
            .is_none_or(|pattern| pattern.matches(key));
        let excluded = self
            .exclude_parameters
            .as_ref()
            .is_some_and(|pattern| pattern.matches(key));
        included && !excluded
    }

    fn project_sd(&self, sd: StorageDescriptor) -> Option<StorageDescriptor> {
        if !self.has_under("sd.") {
            return None;
        }
        let keep = |field: &str| self.has(field);
        let cols = sd.cols.filter(|_| self.has_under("sd.cols.")).map(|cols| {
            cols.into_iter()
                .map(|mut column| {
                    column.name = column.name.filter(|_| keep("sd.cols.name"));
                    column.type_ = column.type_.filter(|_| keep("sd.cols.type"));
                    column.comment = column.comment.filter(|_| keep("sd.cols.comment"));
                    column
                })
                .collect()
        });
        let sort_cols = sd
            .sort_cols
            .filter(|_| self.has_under("sd.sortCols."))
            .map(|orders| {
                orders
                    .into_iter()
                    .map(|order| Order {
                        col: order.col.filter(|_| keep("sd.sortCols.col")),
                        order: order.order.filter(|_| keep("sd.sortCols.order")),
                    })
                    .collect()
            });
        let serde_info = sd
            .serde_info
            .filter(|_| self.has_under("sd.serdeInfo."))
            .map(|serde| SerDeInfo {
                name: serde.name.filter(|_| keep("sd.serdeInfo.name")),
                serialization_lib: serde
                    .serialization_lib
                    .filter(|_| keep("sd.serdeInfo.serializationLib")),
                parameters: serde.parameters.filter(|_| keep("sd.serdeInfo.parameters")),
                description: None,
                serializer_class: None,
                deserializer_class: None,
                serde_type: None,
            });
        let skewed_info = sd
            .skewed_info
            .filter(|_| self.has_under("sd.skewedInfo."))
            .map(|skewed| SkewedInfo {
                skewed_col_names: skewed
                    .skewed_col_names
                    .filter(|_| keep("sd.skewedInfo.skewedColNames")),
                skewed_col_values: skewed
                    .skewed_col_values
                    .filter(|_| keep("sd.skewedInfo.skewedColValues")),
                skewed_col_value_location_maps: skewed
                    .skewed_col_value_location_maps
                    .filter(|_| keep("sd.skewedInfo.skewedColValueLocationMaps")),
            });
        Some(StorageDescriptor {
            cols,
            location: sd.location.filter(|_| keep("sd.location")),
            input_format: sd.input_format.filter(|_| keep("sd.inputFormat")),
            output_format: sd.output_format.filter(|_| keep("sd.outputFormat")),
            compressed: sd.compressed.filter(|_| keep("sd.compressed")),
            num_buckets: sd.num_buckets.filter(|_| keep("sd.numBuckets")),
            serde_info,
            bucket_cols: sd.bucket_cols.filter(|_| keep("sd.bucketCols")),
            sort_cols,
            parameters: sd.parameters.filter(|_| keep("sd.parameters")),
            skewed_info,
            stored_as_sub_directories: None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn projections_expand_prefixes_and_refuse_unknown_fields() {
        let spec = |fields: &[&str]| GetProjectionsSpec {
            field_list: Some(fields.iter().map(|f| f.to_string()).collect()),
            ..GetProjectionsSpec::default()
        };
        let projection = Projection::new(spec(&["sd.serdeInfo", "values"]), false).unwrap();
        let fields = projection.fields.unwrap();
        assert!(fields.contains(&"sd.serdeInfo.name") && fields.contains(&"values"));
        assert!(
            !fields.contains(&"sd.serdeInfo.description"),
            "never returned"
        );
        assert!(!fields.contains(&"sd.location"));
        let error = Projection::new(spec(&["bogus"]), false).err().unwrap();
        assert!(
            format!("{error:?}").contains("Invalid field name bogus"),
            "{error:?}"
        );
        let view = Projection::new(spec(&["sd", "values"]), true).unwrap();
        assert_eq!(view.fields.unwrap(), vec!["values"]);
    }
}
