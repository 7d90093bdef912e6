//! Partition name listings, and the full listings of recently listed tables kept in memory.
//!
//! Query planners list a table's partition names for every query they plan (Trino's
//! `get_partition_names_ps` with no value bound, Spark's `get_partition_names`), while the
//! table seldom changes between two queries. A listing from the store costs a key scan, about
//! a microsecond per partition on sled; a kept listing costs a copy. A kept listing is valid
//! while its table's stripe of the partition sequence lock (`consistent.rs`) has not moved,
//! and every batch that writes a partition key moves it, so a kept listing is never stale.
//! Tables sharing a stripe only cost each other a needless rebuild now and then.

use std::collections::HashMap;
use std::sync::atomic::AtomicUsize;
use std::sync::{Arc, Mutex, OnceLock};

use crate::error::{Error, Result};
use crate::model::partition_name::push_escaped;
use crate::partitions::kept_encodings::KeptEncodings;
use crate::partitions::listed_columns::ListedColumns;
use crate::partitions::partitioned::PartitionedTable;
use crate::storage::keys::{self, TableId};

/// Memory the kept listings may take in all, in bytes. A million names of two keys take some
/// 30 MB; a listing larger than this is answered but not kept.
pub const KEPT_NAME_BYTES_MAX: usize = 128 << 20;

/// Partition names in one buffer, in the order they were pushed.
#[derive(Debug, Default)]
pub struct PartitionNames {
    text: String,
    /// The end of each name in `text`.
    ends: Vec<usize>,
    /// The names' values by key, made on first use.
    columns: OnceLock<Arc<ListedColumns>>,
}

impl PartitionNames {
    pub(crate) fn new() -> Self {
        PartitionNames::default()
    }

    /// How many names.
    pub fn len(&self) -> usize {
        self.ends.len()
    }

    /// Whether there are no names.
    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    /// Name `index`; panics past the end, as slices do.
    pub fn get(&self, index: usize) -> &str {
        let start = if index == 0 { 0 } else { self.ends[index - 1] };
        &self.text[start..self.ends[index]]
    }

    /// Where name `index` is in the text: read apart from the text itself so that the reads
    /// of many names' bounds can overlap (`kept_encodings::NameIndex::find_all`).
    pub(crate) fn bounds(&self, index: usize) -> (usize, usize) {
        let start = if index == 0 { 0 } else { self.ends[index - 1] };
        (start, self.ends[index])
    }

    /// Whether the text at `bounds` (of [`PartitionNames::bounds`]) is `name`.
    pub(crate) fn is_at(&self, (start, end): (usize, usize), name: &str) -> bool {
        self.text.as_bytes().get(start..end) == Some(name.as_bytes())
    }

    /// Appends one name, as `write` writes it to the buffer.
    pub(crate) fn push_with(
        &mut self,
        write: impl FnOnce(&mut String) -> Result<()>,
    ) -> Result<()> {
        let start = self.text.len();
        if let Err(error) = write(&mut self.text) {
            self.text.truncate(start);
            return Err(error);
        }
        self.ends.push(self.text.len());
        Ok(())
    }

    /// The values of the names by key: this listing is the full listing of `table`, built
    /// with `key_parts` (a listing is only ever built with its table's).
    pub(crate) fn columns(
        &self,
        table: &PartitionedTable,
        key_parts: &[String],
    ) -> Result<Arc<ListedColumns>> {
        if let Some(columns) = self.columns.get() {
            return Ok(columns.clone());
        }
        let built = Arc::new(ListedColumns::build(table, key_parts, self)?);
        // Two readers may build them at once: either result is the same.
        Ok(self.columns.get_or_init(|| built).clone())
    }

    /// The bytes of the first `count` names together.
    fn text_len(&self, count: usize) -> usize {
        match count {
            0 => 0,
            count => self.ends[count - 1],
        }
    }

    fn heap_bytes(&self) -> usize {
        self.text.capacity() + self.ends.capacity() * std::mem::size_of::<usize>()
    }
}

/// The answer of a name listing: the first `len` names of a listing that may be shared with
/// other readers (a kept one).
#[derive(Debug, Clone)]
pub struct NameListing {
    names: Arc<PartitionNames>,
    len: usize,
}

impl NameListing {
    pub(crate) fn new(names: Arc<PartitionNames>, len: usize) -> Self {
        let len = len.min(names.len());
        NameListing { names, len }
    }

    /// How many names.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether there are no names.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The names in order.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = &str> + '_ {
        (0..self.len).map(|index| self.names.get(index))
    }

    /// The bytes of all the names together (what a writer reserves).
    pub fn text_len(&self) -> usize {
        self.names.text_len(self.len)
    }

    /// The names as owned strings.
    pub fn to_vec(&self) -> Vec<String> {
        self.iter().map(str::to_string).collect()
    }
}

/// Appends the partition name of partition key `key` to `name`: `k1=v1/k2=v2` from the
/// table's `k=` prefixes (`key_parts`, escaped once per listing) and the values in the key,
/// unescaped from the key into `scratch` and escaped as Hive escapes them.
pub(crate) fn push_name_of_key(
    name: &mut String,
    key_parts: &[String],
    key: &[u8],
    scratch: &mut Vec<u8>,
) -> Result<()> {
    let mut rest = keys::partition_key_values(key)?;
    for (index, key_part) in key_parts.iter().enumerate() {
        if rest.is_empty() {
            return Err(Error::corruption(key, "fewer values than partition keys"));
        }
        scratch.clear();
        rest = keys::take_component_into(rest, scratch).map_err(|error| error.at(key))?;
        let value = std::str::from_utf8(scratch)
            .map_err(|_| Error::corruption(key, "a partition value that is not UTF-8"))?;
        if index > 0 {
            name.push('/');
        }
        name.push_str(key_part);
        push_escaped(name, value);
    }
    if !rest.is_empty() {
        return Err(Error::corruption(key, "more values than partition keys"));
    }
    Ok(())
}

/// One table's kept listing.
struct Kept {
    /// The table's partition-sequence stripe version the listing was read at.
    version: u64,
    /// The `k=` prefixes it was built with (a table's keys do not change, but a kept listing
    /// must never answer for other keys).
    key_parts: Vec<String>,
    names: Arc<PartitionNames>,
    bytes: usize,
    /// The partitions' encodings and the name index, valid with the names.
    encodings: Arc<KeptEncodings>,
}

/// Tables remembered as listed once by a selection that a kept listing would have answered.
const MISSED_TABLE_COUNT_MAX: usize = 4096;

/// The kept full listings, by table.
#[derive(Default)]
pub(crate) struct KeptNames {
    kept: Mutex<HashMap<TableId, Kept>>,
    /// Bytes taken by every kept encoding and name index (`kept_encodings.rs`).
    encoded_bytes: Arc<AtomicUsize>,
    /// The version at which each table was last listed by a bounded selection without a
    /// kept listing: the second such listing at one version reads and keeps the names.
    missed: Mutex<HashMap<TableId, u64>>,
}

impl KeptNames {
    /// The kept listing of `table` if it was read at `version` with `key_parts`.
    pub(crate) fn get(
        &self,
        table: TableId,
        version: u64,
        key_parts: &[String],
    ) -> Option<Arc<PartitionNames>> {
        let kept = self.kept.lock().ok()?;
        let entry = kept.get(&table)?;
        (entry.version == version && entry.key_parts == key_parts).then(|| entry.names.clone())
    }

    /// [`KeptNames::get`] with what is kept beside the names.
    pub(crate) fn get_kept(
        &self,
        table: TableId,
        version: u64,
        key_parts: &[String],
    ) -> Option<(Arc<PartitionNames>, Arc<KeptEncodings>)> {
        let kept = self.kept.lock().ok()?;
        let entry = kept.get(&table)?;
        let current = entry.version == version && entry.key_parts == key_parts;
        current.then(|| (entry.names.clone(), entry.encodings.clone()))
    }

    /// How many more bytes of encodings may be kept now.
    pub(crate) fn encoded_room(&self) -> usize {
        let taken = self.encoded_bytes.load(std::sync::atomic::Ordering::SeqCst);
        crate::partitions::kept_encodings::KEPT_ENCODED_BYTES_MAX.saturating_sub(taken)
    }

    /// Notes that `table` was listed at `version` without a kept listing; whether it was
    /// already so listed at this version (the listing is then worth reading and keeping).
    pub(crate) fn missed_before(&self, table: TableId, version: u64) -> bool {
        let Ok(mut missed) = self.missed.lock() else {
            return false;
        };
        if missed.len() >= MISSED_TABLE_COUNT_MAX {
            missed.clear();
        }
        missed.insert(table, version) == Some(version)
    }

    /// Keeps `names`, the full listing of `table` read at `version`, making room by dropping
    /// listings that `is_current` says are stale, then any others.
    pub(crate) fn keep(
        &self,
        table: TableId,
        version: u64,
        key_parts: &[String],
        names: Arc<PartitionNames>,
        is_current: impl Fn(TableId, u64) -> bool,
    ) {
        // The columns a selection may make for the listing are counted from the start.
        let bytes = names.heap_bytes() + ListedColumns::id_bytes(names.len(), key_parts.len());
        if bytes > KEPT_NAME_BYTES_MAX {
            return;
        }
        let Ok(mut kept) = self.kept.lock() else {
            return;
        };
        kept.remove(&table);
        // A stale listing is never answered again: dropping them all gives their encodings'
        // memory back at once.
        kept.retain(|table, entry| is_current(*table, entry.version));
        let mut total: usize = kept.values().map(|entry| entry.bytes).sum();
        while total + bytes > KEPT_NAME_BYTES_MAX {
            let Some(&victim) = kept.keys().next() else {
                break;
            };
            total -= kept.remove(&victim).map_or(0, |entry| entry.bytes);
        }
        kept.insert(
            table,
            Kept {
                version,
                key_parts: key_parts.to_vec(),
                names,
                bytes,
                encodings: Arc::new(KeptEncodings::new(self.encoded_bytes.clone())),
            },
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(list: &[&str]) -> Arc<PartitionNames> {
        let mut names = PartitionNames::new();
        for name in list {
            names
                .push_with(|text| {
                    text.push_str(name);
                    Ok(())
                })
                .unwrap();
        }
        Arc::new(names)
    }

    #[test]
    fn a_listing_answers_its_first_names() {
        let listing = NameListing::new(names(&["a=1", "a=2", "a=3"]), 2);
        assert_eq!(listing.to_vec(), ["a=1", "a=2"]);
        assert_eq!(listing.text_len(), 6);
        let all = NameListing::new(names(&["a=1"]), usize::MAX);
        assert_eq!(all.len(), 1);
        assert!(NameListing::new(names(&[]), 5).is_empty());
    }

    #[test]
    fn a_failed_push_leaves_no_partial_name() {
        let mut list = PartitionNames::new();
        let failed = list.push_with(|text| {
            text.push_str("half");
            Err(Error::Internal("no".into()))
        });
        assert!(failed.is_err());
        assert!(list.is_empty());
        assert_eq!(list.text_len(0), 0);
    }

    #[test]
    fn a_kept_listing_answers_only_its_version_and_keys() {
        let kept_names = KeptNames::default();
        let parts = vec!["ds=".to_string()];
        kept_names.keep(TableId(7), 4, &parts, names(&["ds=1"]), |_, _| true);
        assert!(kept_names.get(TableId(7), 4, &parts).is_some());
        assert!(kept_names.get(TableId(7), 6, &parts).is_none());
        assert!(kept_names
            .get(TableId(7), 4, &["dt=".to_string()])
            .is_none());
        assert!(kept_names.get(TableId(8), 4, &parts).is_none());
    }

    #[test]
    fn names_are_built_from_keys_as_from_values() {
        let key_names = ["ds", "Hr"];
        let key_parts: Vec<String> = key_names
            .iter()
            .map(|key| {
                format!(
                    "{}=",
                    crate::model::partition_name::escape_path_name(&key.to_lowercase())
                )
            })
            .collect();
        let mut scratch = Vec::new();
        for values in [["2024-01-01", "3"], ["a/b", ""], ["x\u{0}y", "é:%"]] {
            let key = keys::partition_key(TableId(3), &values);
            let mut name = String::new();
            push_name_of_key(&mut name, &key_parts, &key, &mut scratch).unwrap();
            assert_eq!(
                name,
                crate::model::partition_name::make_partition_name(&key_names, &values)
            );
        }
        let short = keys::partition_key(TableId(3), &["only"]);
        let mut name = String::new();
        assert!(push_name_of_key(&mut name, &key_parts, &short, &mut scratch).is_err());
    }
}
