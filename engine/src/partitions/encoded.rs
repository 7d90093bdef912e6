//! Whole partitions written for a reply by a frontend's encoder ([`PartitionSink`]), copied
//! from kept encodings where the table's name listing is kept (`kept_encodings.rs`).
//!
//! A listing is read in two steps. First, as one consistent read at the table's stripe
//! version: the selection is answered from the kept names when there are some (a binary
//! search over the leading values, `kept_selection.rs`, or the name index for names), and
//! only the partitions whose encoding is not kept yet have their record read. Then, outside
//! that read (a retried read must write nothing), the sink writes the partitions in order:
//! kept bytes copied, the others encoded, and those kept for the next call. Without a kept
//! listing, the partitions are read and encoded as before; a second such listing of the same
//! table at the same version reads its names and keeps them.

use std::sync::Arc;

use crate::error::{Error, Result};
use crate::model::table::Table;
use crate::partitions::encoding::{EncodedPartition, EncodingOut, FreshEncodings};
use crate::partitions::kept_encodings::{EncodingKey, KeptEncodings, KindEncodings};
use crate::partitions::kept_selection::{listed_indexes, listed_values, named_indexes, Scope};
use crate::partitions::list::{plain_key_parts, plan, Entry, Keep, PartitionSelection};
use crate::partitions::name_listing::PartitionNames;
use crate::partitions::partitioned::PartitionedTable;
use crate::partitions::stored::resolve_table;
use crate::partitions::views::{PartitionView, PartitionViews};
use crate::storage::keys;
use crate::store::Store;

/// A frontend's writer of whole partitions into one reply.
///
/// The bytes [`PartitionSink::encode`] makes for a partition may depend only on the
/// partition, on [`PartitionSink::encoding_kind`] and on the catalog, database and table
/// names of the table handed to [`PartitionSink::begin`]: they are kept and copied into later
/// replies of the same kind while the table's partitions and names are unchanged. Bytes that
/// many partitions share (a storage descriptor's) are best spliced in by key
/// ([`crate::Splicer`]): they are then kept once, not once a partition.
pub trait PartitionSink {
    /// What else the encoding depends on (its protocol, say): encodings of different kinds
    /// are kept apart.
    fn encoding_kind(&self) -> u32;
    /// Called once, before any partition: the table, and how many partitions follow.
    fn begin(&mut self, table: &Table, count: usize) -> Result<()>;
    /// Writes the encoding of `partition` into `out`; the sink is then handed it to append.
    fn encode(&mut self, partition: &PartitionView<'_>, out: EncodingOut<'_>) -> Result<()>;
    /// Writes one partition's encoding (made by `encode`, now or for an earlier call), piece
    /// by piece ([`EncodedPartition::for_each_piece`]).
    fn append(&mut self, encoded: &EncodedPartition<'_>);
}

/// What the consistent read of a listing found.
enum ReadListing {
    /// The selected partitions, read from the store.
    Scanned(Vec<Entry>),
    /// The selected partitions by index in a kept listing; the records of those whose
    /// encoding was not kept when read, in the same order, and their indexes.
    Listed {
        selected: Vec<u32>,
        kind: Option<Arc<KindEncodings>>,
        missing: Vec<Entry>,
        missing_indexes: Vec<u32>,
    },
}

/// A table's full name listing for a selection, and what is kept beside it (if it is kept).
type Listing = (Arc<PartitionNames>, Option<Arc<KeptEncodings>>);

impl Store {
    /// Writes the partitions of `selection` (at most `max_parts`; below zero, all) of table
    /// `catalog.database.name` through `sink`, in value-tuple order, and answers how many.
    /// An error before [`PartitionSink::begin`] (no such table, a bad filter) leaves the sink
    /// untouched.
    pub fn write_partitions(
        &self,
        catalog: &str,
        database: &str,
        name: &str,
        selection: PartitionSelection<'_>,
        max_parts: i32,
        sink: &mut dyn PartitionSink,
    ) -> Result<usize> {
        let kind = sink.encoding_kind();
        let (table, read) =
            self.read_selected(catalog, database, name, selection, max_parts, kind)?;
        self.write_read(table, read, sink)
    }

    /// The first step of [`Store::write_partitions`]: the table, and the consistent read of
    /// its `selection` for encodings of `kind`.
    fn read_selected(
        &self,
        catalog: &str,
        database: &str,
        name: &str,
        selection: PartitionSelection<'_>,
        max_parts: i32,
        kind: u32,
    ) -> Result<(PartitionedTable, ReadListing)> {
        let table = resolve_table(self.reader(), catalog, database, name)?;
        let key = EncodingKey {
            kind,
            names: [
                table.table.cat_name.clone(),
                table.table.db_name.clone(),
                table.table.table_name.clone(),
            ],
        };
        let read = self.read_partitions_at_version(table.id, |version| {
            self.read_for_writing(&table, selection, max_parts, version, &key)
        })?;
        Ok((table, read))
    }

    /// The second step of [`Store::write_partitions`], outside the read: writes what `read`
    /// found through `sink`, and answers how many partitions.
    fn write_read(
        &self,
        table: PartitionedTable,
        read: ReadListing,
        sink: &mut dyn PartitionSink,
    ) -> Result<usize> {
        let backend = self.backend().clone();
        match read {
            ReadListing::Scanned(entries) => {
                let views = PartitionViews::new(table.table, table.id, entries, backend)?;
                sink.begin(&views.table, views.len())?;
                let mut fresh = FreshEncodings::default();
                for view in views.iter() {
                    // Pieces stay from partition to partition; records do not.
                    fresh.truncate(0);
                    let view = view?;
                    let record = fresh.record(|out| sink.encode(&view, out))?;
                    sink.append(&fresh.get(record)?);
                }
                Ok(views.len())
            }
            ReadListing::Listed {
                selected,
                kind,
                missing,
                missing_indexes,
            } => {
                let views = PartitionViews::new(table.table, table.id, missing, backend)?;
                let room = self.kept_names().0.encoded_room();
                let listed = Listed {
                    selected: &selected,
                    missing_indexes: &missing_indexes,
                };
                write_listed(sink, &views, listed, kind.as_deref(), room)?;
                Ok(selected.len())
            }
        }
    }

    /// One attempt of the consistent read of [`Store::write_partitions`] at `version`.
    fn read_for_writing(
        &self,
        table: &PartitionedTable,
        selection: PartitionSelection<'_>,
        max_parts: i32,
        version: u64,
        key: &EncodingKey,
    ) -> Result<ReadListing> {
        let limit = usize::try_from(max_parts).unwrap_or(usize::MAX);
        let scanned = || {
            let entries = self.select_at(table, selection, max_parts, version)?;
            Ok(ReadListing::Scanned(entries))
        };
        let Some(key_parts) = plain_key_parts(table).filter(|_| limit > 0) else {
            return scanned();
        };
        let selected = if let PartitionSelection::Names(wanted) = selection {
            let Some((names, Some(encodings))) =
                self.listing_for(table, &key_parts, version, false)?
            else {
                return scanned();
            };
            let Some(index) = encodings.name_index(&names) else {
                return scanned();
            };
            let selected = named_indexes(&names, index, wanted, limit);
            (names, Some(encodings), selected)
        } else {
            let plan = plan(table, selection)?;
            // A test on the names of the whole table reads them anyway (`visit`).
            let always = plan.whole_table && !matches!(plan.keep, Keep::Every);
            let Some((names, encodings)) = self.listing_for(table, &key_parts, version, always)?
            else {
                return scanned();
            };
            let scope = match plan.whole_table {
                true => Scope::Whole,
                false => Scope::Ranges(&plan.value_ranges),
            };
            let selected = listed_indexes(table, &key_parts, &names, scope, &plan.keep, limit)?;
            (names, encodings, selected)
        };
        let (names, encodings, selected) = selected;
        let kind = encodings.and_then(|encodings| encodings.kind(key, names.len()));
        self.read_missing(table, &key_parts, &names, selected, kind)
    }

    /// The full name listing of `table` at `version`: the kept one, else (when `read` says
    /// so, or this is the second listing at this version to miss it) read and kept.
    fn listing_for(
        &self,
        table: &PartitionedTable,
        key_parts: &[String],
        version: u64,
        read: bool,
    ) -> Result<Option<Listing>> {
        let (kept_names, _) = self.kept_names();
        if let Some((names, encodings)) = kept_names.get_kept(table.id, version, key_parts) {
            self.usage.kept_name_listings.record(true);
            return Ok(Some((names, Some(encodings))));
        }
        if !read && !kept_names.missed_before(table.id, version) {
            self.usage.kept_name_listings.record(false);
            return Ok(None);
        }
        // The read below counts its own use or miss.
        let names = self.every_name_at(table, key_parts, version)?;
        let encodings = kept_names
            .get_kept(table.id, version, key_parts)
            .filter(|(kept, _)| Arc::ptr_eq(kept, &names))
            .map(|(_, encodings)| encodings);
        Ok(Some((names, encodings)))
    }

    /// The records of the `selected` partitions whose encoding `kind` does not keep. A record
    /// missing from the store was removed since the listing was read: the read this is part
    /// of sees the version move and starts again (the partition is left out meanwhile).
    fn read_missing(
        &self,
        table: &PartitionedTable,
        key_parts: &[String],
        names: &PartitionNames,
        selected: Vec<u32>,
        kind: Option<Arc<KindEncodings>>,
    ) -> Result<ReadListing> {
        let mut missing = Vec::new();
        let mut missing_indexes = Vec::new();
        let mut present = Vec::with_capacity(selected.len());
        {
            let kept = kind.as_ref().map(|kind| kind.read());
            for index in selected {
                if kept.as_ref().is_some_and(|kept| kept.has(index)) {
                    present.push(index);
                    continue;
                }
                let values = listed_values(table, key_parts, names.get(index as usize))?;
                let key = keys::partition_key(table.id, &values);
                let Some(stored) = self.reader().get(&key)? else {
                    continue;
                };
                missing.push((
                    crate::storage::kv::KvBytes::from_shared(key.into()),
                    stored,
                    values,
                ));
                missing_indexes.push(index);
                present.push(index);
            }
        }
        let missed = missing_indexes.len();
        let count = |count: usize| u64::try_from(count).unwrap_or(u64::MAX);
        self.usage
            .kept_encodings
            .record_many(count(present.len() - missed), count(missed));
        Ok(ReadListing::Listed {
            selected: present,
            kind,
            missing,
            missing_indexes,
        })
    }
}

/// The partitions a listing writes, by index, and those of them read as records.
struct Listed<'a> {
    selected: &'a [u32],
    /// In the order of `selected`; each has its record in the views.
    missing_indexes: &'a [u32],
}

/// Writes the `selected` partitions through `sink`: kept encodings copied, the others
/// (`views`, in the same order) encoded, and kept as far as `room` bytes. A partition read as
/// a record is encoded from it even if a concurrent listing has kept it since: which record
/// goes with which partition is decided by index, never by what is kept now.
fn write_listed(
    sink: &mut dyn PartitionSink,
    views: &PartitionViews,
    listed: Listed<'_>,
    kind: Option<&KindEncodings>,
    room: usize,
) -> Result<()> {
    sink.begin(&views.table, listed.selected.len())?;
    let mut fresh = FreshEncodings::default();
    let mut fresh_ranges = Vec::new();
    {
        let kept = kind.map(KindEncodings::read);
        let mut missing = views.iter();
        let mut missing_indexes = listed.missing_indexes.iter().peekable();
        for &index in listed.selected {
            if missing_indexes.next_if_eq(&&index).is_none() {
                // Kept when the listing was read; kept encodings are only ever added to.
                let encoded = kept
                    .as_ref()
                    .and_then(|kept| kept.get(index))
                    .ok_or_else(|| {
                        Error::Internal("a kept partition encoding went missing".into())
                    })?;
                sink.append(&encoded);
                continue;
            }
            let view = missing.next().ok_or_else(|| {
                Error::Internal("a listing has fewer records than partitions to encode".into())
            })??;
            let record = fresh.record(|out| sink.encode(&view, out))?;
            sink.append(&fresh.get(record.clone())?);
            if kind.is_some() && fresh.len() <= room {
                fresh_ranges.push((index, record));
            } else {
                fresh.truncate(record.start);
            }
        }
    }
    if let Some(kind) = kind {
        kind.fill(&fresh, &fresh_ranges);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    //! Goal: a listing whose partitions are kept by a concurrent listing between its read and
    //! its write still writes each partition from its own record (51e406c). Method: the two
    //! steps of `write_partitions` called apart, with a listing by names in between that
    //! keeps two of the partitions the first read as records.

    use super::*;
    use crate::storage::kv::MemoryBackend;
    use crate::{Database, Durability, FieldSchema, Partition, StoreOptions};

    /// Encodes a partition as its values; remembers what it was handed to append.
    #[derive(Default)]
    struct ValuesSink {
        written: Vec<String>,
    }

    impl PartitionSink for ValuesSink {
        fn encoding_kind(&self) -> u32 {
            1
        }

        fn begin(&mut self, _table: &Table, count: usize) -> Result<()> {
            self.written = Vec::with_capacity(count);
            Ok(())
        }

        fn encode(&mut self, partition: &PartitionView<'_>, out: EncodingOut<'_>) -> Result<()> {
            let (bytes, _) = out.parts();
            bytes.extend_from_slice(partition.values().join("/").as_bytes());
            Ok(())
        }

        fn append(&mut self, encoded: &EncodedPartition<'_>) {
            let text = String::from_utf8(encoded.to_vec()).expect("the sink writes text");
            self.written.push(text);
        }
    }

    const DAYS: [&str; 6] = ["a", "b", "c", "d", "e", "f"];

    /// A store whose table `db.t` has a partition for each of `DAYS`, its names kept.
    fn store() -> Store {
        let mut options = StoreOptions::new("/warehouse").metadata_only();
        options.durability = Durability::Memory;
        let store = Store::open_with_backend(Arc::new(MemoryBackend::new()), options).unwrap();
        let database = Database {
            name: "db".into(),
            ..Database::default()
        };
        store.create_database(database).unwrap();
        let ds = FieldSchema {
            name: "ds".into(),
            type_name: "string".into(),
            comment: None,
        };
        let table = Table {
            table_name: "t".into(),
            db_name: "db".into(),
            partition_keys: vec![ds],
            ..Table::default()
        };
        store.create_table(table).unwrap();
        let partitions = DAYS
            .iter()
            .map(|day| Partition {
                values: vec![day.to_string()],
                ..Partition::default()
            })
            .collect();
        let options = crate::AddPartitionsOptions::default();
        store
            .add_partitions("hive", "db", "t", partitions, &options)
            .unwrap();
        store.list_partition_names("hive", "db", "t", -1).unwrap();
        store
    }

    #[test]
    fn partitions_kept_between_read_and_write_are_written_from_their_own_records() {
        let store = store();
        let mut sink = ValuesSink::default();
        let kind = sink.encoding_kind();
        let (table, read) = store
            .read_selected("hive", "db", "t", PartitionSelection::All, -1, kind)
            .unwrap();
        let ReadListing::Listed {
            kind: Some(kept),
            missing_indexes,
            ..
        } = &read
        else {
            panic!("the names are kept, so the listing is read by index");
        };
        assert_eq!(
            missing_indexes,
            &[0, 1, 2, 3, 4, 5],
            "nothing kept when read"
        );
        let kept = kept.clone();

        // A concurrent listing keeps "b" and "d" before the first writes its reply.
        let mut concurrent = ValuesSink::default();
        let wanted = ["ds=b", "ds=d"];
        let selection = PartitionSelection::Names(&wanted);
        store
            .write_partitions("hive", "db", "t", selection, -1, &mut concurrent)
            .unwrap();
        assert_eq!(concurrent.written, ["b", "d"]);
        let kept_now: Vec<bool> = (0..6).map(|index| kept.read().has(index)).collect();
        assert_eq!(
            kept_now,
            [false, true, false, true, false, false],
            "the race is set up"
        );

        let count = store.write_read(table, read, &mut sink).unwrap();
        assert_eq!(count, DAYS.len());
        assert_eq!(sink.written, DAYS);

        // What the first listing kept is each partition's own encoding too.
        let mut again = ValuesSink::default();
        store
            .write_partitions("hive", "db", "t", PartitionSelection::All, -1, &mut again)
            .unwrap();
        assert!((0..6).all(|index| kept.read().has(index)), "all kept now");
        assert_eq!(again.written, DAYS);
    }
}
