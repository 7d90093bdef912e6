//! Partitions read in place, for writers that copy them to the wire without building an owned
//! `Partition` each: every record is validated once, as it is handed out, and each shared
//! descriptor is read once per listing and handed out by reference count.

use std::collections::HashMap;
use std::sync::Arc;

use crate::error::Result;
use crate::model::partition::{ArchivedPartitionRecord, PartitionRecord};
use crate::model::table::{StorageDescriptor, Table};
use crate::partitions::descriptors::DescriptorView;
use crate::storage::keys::TableId;
use crate::storage::kv::{KvBackend, KvBytes};
use crate::storage::values::ValueView;

/// Partitions of one table read in place, in key order, with the table.
pub struct PartitionViews {
    /// The table they belong to.
    pub table: Table,
    table_id: TableId,
    partitions: Vec<StoredPartition>,
    /// Where the shared descriptors are read from when first met. They are never rewritten
    /// and live as long as their table, so reading them after the listing's consistent read
    /// sees what it referred to.
    backend: Arc<dyn KvBackend>,
}

/// One selected partition: its values (from the key) and its record, not yet validated.
struct StoredPartition {
    values: Vec<String>,
    record: ValueView<PartitionRecord>,
}

impl PartitionViews {
    /// Wraps `entries` (key, stored record, values) of table `table_id`; only their headers
    /// are checked here.
    pub(crate) fn new(
        table: Table,
        table_id: TableId,
        entries: Vec<(KvBytes, KvBytes, Vec<String>)>,
        backend: Arc<dyn KvBackend>,
    ) -> Result<Self> {
        let mut partitions = Vec::with_capacity(entries.len());
        for (key, stored, values) in entries {
            let record = ValueView::<PartitionRecord>::new(key, stored)?;
            partitions.push(StoredPartition { values, record });
        }
        Ok(PartitionViews {
            table,
            table_id,
            partitions,
            backend,
        })
    }

    /// How many partitions.
    pub fn len(&self) -> usize {
        self.partitions.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.partitions.is_empty()
    }

    /// The values of each partition, in order; nothing is validated.
    pub fn values(&self) -> impl ExactSizeIterator<Item = &[String]> + '_ {
        self.partitions
            .iter()
            .map(|partition| partition.values.as_slice())
    }

    /// The partitions in order, each record validated as it is handed out.
    pub fn iter(&self) -> PartitionIter<'_> {
        PartitionIter {
            views: self,
            next: 0,
            descriptors: HashMap::new(),
        }
    }
}

/// The iterator of [`PartitionViews::iter`].
pub struct PartitionIter<'v> {
    views: &'v PartitionViews,
    next: usize,
    /// The shared descriptors met so far, by id.
    descriptors: HashMap<u64, Arc<DescriptorView>>,
}

impl<'v> PartitionIter<'v> {
    fn descriptor(&mut self, id: u64) -> Result<Arc<DescriptorView>> {
        if let Some(view) = self.descriptors.get(&id) {
            return Ok(view.clone());
        }
        let backend = self.views.backend.as_ref();
        let view = Arc::new(DescriptorView::read(backend, self.views.table_id, id)?);
        self.descriptors.insert(id, view.clone());
        Ok(view)
    }

    fn view(&mut self, partition: &'v StoredPartition) -> Result<PartitionView<'v>> {
        let record = partition.record.archived()?;
        let descriptor = match record.descriptor_id.as_ref() {
            Some(id) => {
                let id = id.to_native();
                Some((id, self.descriptor(id)?))
            }
            None => None,
        };
        Ok(PartitionView {
            values: &partition.values,
            record,
            descriptor,
        })
    }
}

impl<'v> Iterator for PartitionIter<'v> {
    type Item = Result<PartitionView<'v>>;

    fn next(&mut self) -> Option<Self::Item> {
        let partition = self.views.partitions.get(self.next)?;
        self.next += 1;
        Some(self.view(partition))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let left = self.views.partitions.len() - self.next;
        (left, Some(left))
    }
}

impl ExactSizeIterator for PartitionIter<'_> {}

/// One partition read in place: its values, its validated record and its shared descriptor.
pub struct PartitionView<'v> {
    values: &'v [String],
    record: &'v ArchivedPartitionRecord,
    descriptor: Option<(u64, Arc<DescriptorView>)>,
}

impl<'v> PartitionView<'v> {
    /// The partition values, in key order.
    pub fn values(&self) -> &'v [String] {
        self.values
    }

    /// The stored record (the location of the descriptor is here).
    pub fn record(&self) -> &'v ArchivedPartitionRecord {
        self.record
    }

    /// The id of the shared descriptor, if any: partitions with the same id share it, so a
    /// writer encodes each shared descriptor once ([`Self::descriptor`] validates it on every
    /// call).
    pub fn descriptor_id(&self) -> Option<u64> {
        self.descriptor.as_ref().map(|(id, _)| *id)
    }

    /// The shared storage descriptor, validated, if the partition has one.
    pub fn descriptor(&self) -> Result<Option<&rkyv::Archived<StorageDescriptor>>> {
        self.descriptor
            .as_ref()
            .map(|(_, view)| view.archived())
            .transpose()
    }

    /// Whether the shared descriptor's columns were left unset (Hive answers them unset).
    pub fn columns_unset(&self) -> bool {
        self.descriptor
            .as_ref()
            .is_some_and(|(_, view)| view.columns_unset())
    }
}
