//! Partitions on their way in, with their storage descriptors split as the store keeps them:
//! the shared part (everything but the location) behind an `Arc`, the location apart. The
//! partitions of one `add_partitions` call nearly always share one descriptor of twenty-odd
//! columns; carried by value, each partition paid for a copy of it when decoded, a comparison
//! when interned and logged, and a drop. Carried this way, the copy is one reference count, and
//! the comparisons are a pointer's.

use std::sync::Arc;

use crate::error::Result;
use crate::events::{
    PartitionImage, PartitionImages, StoredPartitionImage, StoredPartitions, TableImage,
};
use crate::model::partition::same_shared;
use crate::model::partition::{Partition, PartitionRecord};
use crate::model::principal::PrincipalPrivilegeSet;
use crate::model::table::{FileMetadata, StorageDescriptor, Table};

/// A partition to add ([`crate::Store::add_partition_batch`]): Hive's `Partition` with its
/// storage descriptor split into a shared part and the location.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct NewPartition {
    /// One value per partition key, in key order; an empty value means the default partition.
    pub values: Vec<String>,
    /// The database it belongs to, or empty for the table's.
    pub db_name: String,
    /// The table it belongs to, or empty for the table's.
    pub table_name: String,
    /// The catalog, or empty for the table's.
    pub cat_name: String,
    /// Last access time.
    pub last_access_time: i32,
    /// The storage descriptor but for its location (which is ignored if set); none means the
    /// table's.
    pub descriptor: Option<Arc<StorageDescriptor>>,
    /// The location; none means the default, `<table location>/<partition name>`.
    pub location: Option<String>,
    /// Parameters.
    pub parameters: std::collections::BTreeMap<String, String>,
    /// Privileges.
    pub privileges: Option<PrincipalPrivilegeSet>,
    /// The ACID write id; -1 when none.
    pub write_id: i64,
    /// File metadata for some engines.
    pub file_metadata: Option<FileMetadata>,
}

impl From<Partition> for NewPartition {
    /// `partition` split; its create time is dropped, as an add sets it.
    fn from(partition: Partition) -> Self {
        let (descriptor, location) = match partition.sd {
            Some(mut sd) => {
                let location = sd.location.take();
                (Some(Arc::new(sd)), location)
            }
            None => (None, None),
        };
        NewPartition {
            values: partition.values,
            db_name: partition.db_name,
            table_name: partition.table_name,
            cat_name: partition.cat_name,
            last_access_time: partition.last_access_time,
            descriptor,
            location,
            parameters: partition.parameters,
            privileges: partition.privileges,
            write_id: partition.write_id,
            file_metadata: partition.file_metadata,
        }
    }
}

/// The partitions an add wrote, as its `ADD_PARTITION` event holds them.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct AddedPartitions {
    table: Table,
    images: PartitionImages,
}

impl AddedPartitions {
    pub(crate) fn new(table: Table, images: PartitionImages) -> Self {
        AddedPartitions { table, images }
    }

    /// How many were added.
    pub fn len(&self) -> usize {
        self.images.partitions.len()
    }

    /// Whether none was (all existed, with `if_not_exists`, or none was given).
    pub fn is_empty(&self) -> bool {
        self.images.partitions.is_empty()
    }

    /// The partitions added, as members of their table, in the order given.
    pub fn into_partitions(self) -> Vec<Partition> {
        let PartitionImages {
            descriptors,
            partitions,
        } = self.images;
        let table = &self.table;
        let descriptor_of = |image: &PartitionImage, location: &Option<String>| {
            let shared = image
                .descriptor
                .and_then(|index| descriptors.get(index as usize));
            shared.map(|shared| StorageDescriptor {
                location: location.clone(),
                ..shared.clone()
            })
        };
        let into_partition = |image: PartitionImage| {
            let sd = descriptor_of(&image, &image.record.location);
            Partition {
                sd,
                ..crate::model::partition::partition_of(table, image.values, image.record)
            }
        };
        partitions.into_iter().map(into_partition).collect()
    }
}

/// Builds the images of an add's partitions for its event: each record as its stored bytes,
/// each shared descriptor held once (the one of the previous partition is recognised by its
/// pointer); and the records themselves, for the partitions handed back.
#[derive(Default)]
pub(crate) struct ImagesBuilder {
    descriptors: Vec<StorageDescriptor>,
    stored: Vec<StoredPartitionImage>,
    records: Vec<PartitionRecord>,
    last: Option<(Arc<StorageDescriptor>, u32)>,
}

impl ImagesBuilder {
    /// Adds the partition of `values` stored as `stored`, the bytes of `record`, with shared
    /// `descriptor` (location none).
    pub(crate) fn push(
        &mut self,
        values: Vec<String>,
        record: PartitionRecord,
        stored: Vec<u8>,
        descriptor: Option<&Arc<StorageDescriptor>>,
    ) {
        let descriptor = descriptor.map(|shared| self.index_of(shared));
        self.stored.push(StoredPartitionImage {
            values,
            record: stored,
            descriptor,
        });
        self.records.push(record);
    }

    fn index_of(&mut self, shared: &Arc<StorageDescriptor>) -> u32 {
        if let Some((last, index)) = &self.last {
            if Arc::ptr_eq(last, shared) {
                return *index;
            }
        }
        let descriptors = &mut self.descriptors;
        let found = descriptors
            .iter()
            .position(|held| same_shared(held, shared));
        let index = found.unwrap_or_else(|| {
            debug_assert!(
                shared.location.is_none(),
                "a shared descriptor has no location"
            );
            descriptors.push(StorageDescriptor::clone(shared));
            descriptors.len() - 1
        });
        let index = u32::try_from(index).unwrap_or(u32::MAX);
        self.last = Some((shared.clone(), index));
        index
    }

    /// Whether no partition was pushed.
    pub(crate) fn is_empty(&self) -> bool {
        self.stored.is_empty()
    }

    /// The event's stored form of the partitions, and their records.
    pub(crate) fn finish(self, table: &Table) -> Result<(StoredPartitions, Vec<PartitionRecord>)> {
        let stored = StoredPartitions {
            table: TableImage::of(table)?,
            descriptors: self.descriptors,
            partitions: self.stored,
        };
        Ok((stored, self.records))
    }
}

/// The partitions added, from what their event stored (`stored`, taken back from it) and
/// their `records`.
pub(crate) fn added_from_event(
    table: Table,
    stored: StoredPartitions,
    records: Vec<PartitionRecord>,
) -> AddedPartitions {
    let image = |(stored, mut record): (StoredPartitionImage, PartitionRecord)| {
        record.descriptor_id = None;
        PartitionImage {
            values: stored.values,
            record,
            descriptor: stored.descriptor,
        }
    };
    let partitions = stored.partitions.into_iter().zip(records).map(image);
    let images = PartitionImages {
        descriptors: stored.descriptors,
        partitions: partitions.collect(),
    };
    AddedPartitions::new(table, images)
}
