//! The partitions a `PartitionSpec` holds, as `add_partitions_pspec` receives them: those of a
//! list spec as they are, and those of a spec with a shared storage descriptor each made whole
//! from that descriptor, as Hive's `PartitionSpecWithSharedSDProxy` makes them.

use hivestore_idl::hive_metastore::{Partition, PartitionSpec, PartitionWithoutSD};

use crate::errors::{exception, Declared};

/// What Java's string concatenation writes for a null part: Hive joins the shared location
/// and a relative path with `+`.
const JAVA_NULL_TEXT: &str = "null";

/// Every partition of `spec`, in order: a list spec's members named after the spec where they
/// name nothing, a shared-descriptor spec's members each with a copy of the descriptor.
pub(crate) fn partitions_of(spec: PartitionSpec) -> thrift::Result<Vec<Partition>> {
    let mut partitions = Vec::new();
    if let Some(shared) = spec.shared_s_d_partition_spec {
        // Hive's proxy makes each location `sd.location + relativePath`; without a shared
        // location that is a relative path, which Hive refuses too (with a Java URI error).
        let Some((sd, base)) = shared
            .sd
            .and_then(|sd| sd.location.clone().map(|base| (sd, base)))
        else {
            return Err(exception(
                Declared::Meta,
                "a partition spec with a shared storage descriptor must give the descriptor a \
                 location: each partition's is that location followed by its relativePath",
            ));
        };
        for member in shared.partitions.unwrap_or_default() {
            let mut partition_sd = sd.clone();
            partition_sd.location = Some(joined_location(&base, &member));
            partitions.push(Partition {
                values: member.values,
                db_name: spec.db_name.clone(),
                table_name: spec.table_name.clone(),
                create_time: member.create_time,
                last_access_time: member.last_access_time,
                sd: Some(partition_sd),
                parameters: member.parameters,
                privileges: None,
                cat_name: spec.cat_name.clone(),
                write_id: None,
                is_stats_compliant: None,
                col_stats: None,
                file_metadata: None,
            });
        }
    }
    let listed = spec.partition_list.and_then(|list| list.partitions);
    for mut partition in listed.unwrap_or_default() {
        partition.db_name = partition.db_name.or_else(|| spec.db_name.clone());
        partition.table_name = partition.table_name.or_else(|| spec.table_name.clone());
        partition.cat_name = partition.cat_name.or_else(|| spec.cat_name.clone());
        partitions.push(partition);
    }
    Ok(partitions)
}

/// `base` followed by the member's relative path, or by `null` when it has none, as Java's
/// `+` joins them.
fn joined_location(base: &str, member: &PartitionWithoutSD) -> String {
    let relative = member.relative_path.as_deref().unwrap_or(JAVA_NULL_TEXT);
    format!("{base}{relative}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use hivestore_idl::hive_metastore::{
        MetaException, PartitionSpecWithSharedSD, StorageDescriptor,
    };

    fn member(values: &[&str], relative_path: Option<&str>) -> PartitionWithoutSD {
        PartitionWithoutSD {
            values: Some(values.iter().map(|value| value.to_string()).collect()),
            create_time: None,
            last_access_time: None,
            relative_path: relative_path.map(str::to_string),
            parameters: None,
            privileges: None,
        }
    }

    fn shared_spec(location: Option<&str>, members: Vec<PartitionWithoutSD>) -> PartitionSpec {
        PartitionSpec {
            db_name: Some("db".into()),
            table_name: Some("t".into()),
            root_path: None,
            shared_s_d_partition_spec: Some(PartitionSpecWithSharedSD {
                partitions: Some(members),
                sd: Some(StorageDescriptor {
                    location: location.map(str::to_string),
                    input_format: Some("in".into()),
                    ..StorageDescriptor::default()
                }),
            }),
            partition_list: None,
            cat_name: None,
            write_id: None,
            is_stats_compliant: None,
        }
    }

    #[test]
    fn shared_descriptor_members_get_its_copy_at_their_relative_path() {
        // Goal: each member becomes a partition of the spec's table with the shared
        // descriptor, located at the shared location followed by its relative path (Java's
        // `null` text where it has none).
        let spec = shared_spec(
            Some("file:/w/t"),
            vec![member(&["1"], Some("/ds=1")), member(&["2"], None)],
        );
        let partitions = partitions_of(spec).unwrap();
        let locations: Vec<_> = partitions
            .iter()
            .map(|partition| partition.sd.as_ref().unwrap().location.clone().unwrap())
            .collect();
        assert_eq!(locations, ["file:/w/t/ds=1", "file:/w/tnull"]);
        let first = &partitions[0];
        assert_eq!(first.db_name.as_deref(), Some("db"));
        assert_eq!(first.table_name.as_deref(), Some("t"));
        assert_eq!(first.values.as_deref(), Some(&["1".to_string()][..]));
        assert_eq!(
            first.sd.as_ref().unwrap().input_format.as_deref(),
            Some("in")
        );
    }

    #[test]
    fn a_shared_descriptor_without_a_location_is_refused() {
        let spec = shared_spec(None, vec![member(&["1"], Some("/ds=1"))]);
        let thrift::Error::User(error) = partitions_of(spec).unwrap_err() else {
            panic!("not a declared exception");
        };
        let exception = error.downcast_ref::<MetaException>().unwrap();
        let message = exception.message.as_deref().unwrap_or_default();
        assert!(
            message.contains("must give the descriptor a location"),
            "{message}"
        );
    }
}
