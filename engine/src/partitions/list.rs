//! Reading partitions: by values and names, and listings of a table's
//! partitions, all, by partial values (`get_partitions_ps`), by names
//! (`get_partitions_by_names`) and by Hive's filter language
//! (`get_partitions_by_filter`).
//!
//! Every listing is one or more key-range scans in value-tuple order. A
//! filter's equality and range conditions on leading string keys become the
//! ranges (the scan is a superset); the filter is then evaluated on the
//! values decoded from each key, so a partition is deserialised only if it
//! is returned. `max_parts` below zero means all.

use std::ops::Bound;
use std::sync::Arc;

use crate::error::{Error, Result};
use crate::model::partition::{Partition, PartitionRecord};
use crate::model::partition_name::{escape_path_name, is_plain, push_escaped};
use crate::partitions::descriptors::KeptDescriptors;
use crate::partitions::filter::{CompiledFilter, PartitionFilter, ValueRange};
use crate::partitions::kept_selection::{listed_indexes, listed_values, Scope};
use crate::partitions::name_listing::{push_name_of_key, NameListing, PartitionNames};
use crate::partitions::partitioned::scan_range;
use crate::partitions::partitioned::{values_of_name, PartitionedTable};
use crate::partitions::stored::{
    assemble, check_value_count, java_list, normalize_values, resolve_table,
};
use crate::partitions::views::PartitionViews;
use crate::storage::keys::{self, TableId};
use crate::storage::kv::SCAN_PAGE_ENTRY_COUNT;
use crate::storage::kv::{self, KeyRange, KvBackend, KvBytes};
use crate::storage::values::ValueView;
use crate::store::Store;

/// Which partitions of a table a listing returns.
#[derive(Debug, Clone, Copy)]
pub enum PartitionSelection<'a> {
    /// Every partition (`get_partitions`, `get_partition_names`).
    All,
    /// Values for a prefix of the partition keys; an empty value matches
    /// any (`get_partitions_ps`, `get_partition_names_ps`).
    PartialValues(&'a [String]),
    /// Hive's filter language (`get_partitions_by_filter`).
    Filter(&'a str),
    /// Partition names; names of no partition are skipped
    /// (`get_partitions_by_names`). Borrowed, so that a frontend can hand over the names
    /// where they lie in the request.
    Names(&'a [&'a str]),
}

/// One selected partition: key, stored record, values.
pub(crate) type Entry = (KvBytes, KvBytes, Vec<String>);

/// The test a scanned partition's values must pass.
pub(crate) enum Keep {
    Every,
    /// Values for leading keys; an empty one matches any.
    Partial(Vec<String>),
    Filter(CompiledFilter),
}

impl Keep {
    pub(crate) fn keeps<V: AsRef<str>>(&self, values: &[V]) -> bool {
        match self {
            Keep::Every => true,
            Keep::Partial(partial) => partial
                .iter()
                .zip(values)
                .all(|(wanted, value)| wanted.is_empty() || wanted == value.as_ref()),
            Keep::Filter(filter) => filter.matches(values),
        }
    }
}

/// What a selection scans and what it keeps of the scan.
pub(crate) struct Plan {
    /// Disjoint ranges in key order.
    ranges: Vec<KeyRange>,
    pub(crate) keep: Keep,
    /// Whether `ranges` is the whole table: the selection bounds no leading key, so a kept
    /// name listing tells which partitions pass faster than a scan of every key.
    pub(crate) whole_table: bool,
    /// The value ranges `ranges` were made from, when not the whole table.
    pub(crate) value_ranges: Vec<ValueRange>,
}

/// Whether a listing needs the stored records or only the partitions' keys and values.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Read {
    Records,
    KeysOnly,
}

/// Visits selected partitions: key, stored record (`None` when only keys are read), values.
type Visit<'v> = dyn FnMut(KvBytes, Option<KvBytes>, Vec<String>) -> Result<()> + 'v;

impl Store {
    /// Partition `values` of table `catalog.database.name`; Hive's
    /// `get_partition`. An empty value means the default partition.
    pub fn get_partition(
        &self,
        catalog: &str,
        database: &str,
        name: &str,
        values: &[String],
    ) -> Result<Partition> {
        let table = resolve_table(self.reader(), catalog, database, name)?;
        let values = normalize_values(values);
        check_value_count(&table, &values)?;
        let missing = || Error::NoSuchObject(format!("partition values={}", java_list(&values)));
        let key = keys::partition_key(table.id, &values);
        let stored = self.reader().get(&key)?.ok_or_else(missing)?;
        let record = ValueView::<PartitionRecord>::new(KvBytes::from_shared(key.into()), stored)?;
        let mut descriptors = KeptDescriptors::new(table.id);
        let record = record.to_owned()?;
        assemble(
            self.reader(),
            &mut descriptors,
            &table.table,
            values,
            record,
            false,
        )
    }

    /// Partition `partition_name` (`k1=v1/k2=v2`) of table
    /// `catalog.database.name`; Hive's `get_partition_by_name`.
    pub fn get_partition_by_name(
        &self,
        catalog: &str,
        database: &str,
        name: &str,
        partition_name: &str,
    ) -> Result<Partition> {
        let table = resolve_table(self.reader(), catalog, database, name)?;
        let values = values_of_name(&table, partition_name).ok_or_else(|| {
            Error::NoSuchObject(format!(
                "partition {partition_name} of {} not found",
                table.table.qualified_name()
            ))
        })?;
        self.get_partition(catalog, database, name, &values)
    }

    /// The partitions of `selection`, read in place, at most `max_parts`
    /// (below zero: all), in value-tuple order.
    pub fn partition_views(
        &self,
        catalog: &str,
        database: &str,
        name: &str,
        selection: PartitionSelection<'_>,
        max_parts: i32,
    ) -> Result<PartitionViews> {
        let table = resolve_table(self.reader(), catalog, database, name)?;
        let entries = self.select(&table, selection, max_parts)?;
        PartitionViews::new(table.table, table.id, entries, self.backend().clone())
    }

    /// The partitions of `selection`, at most `max_parts` (below zero: all),
    /// in value-tuple order; with `skip_columns`, without their columns
    /// (Hive 4's `skipColumnSchemaForPartition`).
    pub fn list_partitions_selected(
        &self,
        catalog: &str,
        database: &str,
        name: &str,
        selection: PartitionSelection<'_>,
        max_parts: i32,
        skip_columns: bool,
    ) -> Result<Vec<Partition>> {
        let table = resolve_table(self.reader(), catalog, database, name)?;
        let entries = self.select(&table, selection, max_parts)?;
        let mut descriptors = KeptDescriptors::new(table.id);
        let mut partitions = Vec::with_capacity(entries.len());
        for (key, stored, values) in entries {
            let record = ValueView::<PartitionRecord>::new(key, stored)?.to_owned()?;
            let partition = assemble(
                self.reader(),
                &mut descriptors,
                &table.table,
                values,
                record,
                skip_columns,
            )?;
            partitions.push(partition);
        }
        Ok(partitions)
    }

    /// The names of the partitions of `selection`, at most `max_parts`
    /// (below zero: all), in value-tuple order. Only keys are read.
    pub fn list_partition_names_selected(
        &self,
        catalog: &str,
        database: &str,
        name: &str,
        selection: PartitionSelection<'_>,
        max_parts: i32,
    ) -> Result<Vec<String>> {
        let listing = self.partition_names(catalog, database, name, selection, max_parts)?;
        Ok(listing.to_vec())
    }

    /// [`Store::list_partition_names_selected`] without a `String` per name. Every name of a
    /// table (also a selection of partial values that are all empty, which match any) is
    /// answered from the table's kept listing while the table is unchanged, and a full
    /// listing is kept (see `name_listing.rs`).
    pub fn partition_names(
        &self,
        catalog: &str,
        database: &str,
        name: &str,
        selection: PartitionSelection<'_>,
        max_parts: i32,
    ) -> Result<NameListing> {
        let table = resolve_table(self.reader(), catalog, database, name)?;
        // `k=` of each key, escaped once rather than per partition.
        let key_parts: Vec<String> = table
            .key_names()
            .iter()
            .map(|key| format!("{}=", escape_path_name(&key.to_lowercase())))
            .collect();
        let limit = usize::try_from(max_parts).unwrap_or(usize::MAX);
        let every_name = match selection {
            PartitionSelection::All => true,
            // More values than keys is the scan's error, made below.
            PartitionSelection::PartialValues(values) => {
                values.len() <= key_parts.len() && values.iter().all(String::is_empty)
            }
            _ => false,
        };
        if !every_name {
            let names = self.read_partitions_at_version(table.id, |version| {
                let mut names = PartitionNames::new();
                let read = (version, Read::KeysOnly);
                self.visit(&table, selection, max_parts, read, &mut |_, _, values| {
                    names.push_with(|text| {
                        push_joined_name(text, &key_parts, &values);
                        Ok(())
                    })
                })?;
                Ok(names)
            })?;
            return Ok(NameListing::new(Arc::new(names), usize::MAX));
        }
        let names = self.read_partitions_at_version(table.id, |version| {
            if max_parts < 0 {
                return self.every_name_at(&table, &key_parts, version);
            }
            // A short listing is read as asked, unless a kept one answers it.
            let (kept_names, _) = self.kept_names();
            let kept = kept_names.get(table.id, version, &key_parts);
            self.usage.kept_name_listings.record(kept.is_some());
            if let Some(names) = kept {
                return Ok(names);
            }
            Ok(Arc::new(self.read_names(&table, &key_parts, limit)?))
        })?;
        Ok(NameListing::new(names, limit))
    }

    /// Every partition name of `table` at `version` (the stripe version of the read this is
    /// part of), from the kept listing, else read from the keys and kept.
    pub(crate) fn every_name_at(
        &self,
        table: &PartitionedTable,
        key_parts: &[String],
        version: u64,
    ) -> Result<Arc<PartitionNames>> {
        let (kept_names, versions) = self.kept_names();
        let kept = kept_names.get(table.id, version, key_parts);
        self.usage.kept_name_listings.record(kept.is_some());
        if let Some(names) = kept {
            return Ok(names);
        }
        let names = Arc::new(self.read_names(table, key_parts, usize::MAX)?);
        // Kept only if no batch moved the table during the read: a listing must never be
        // kept at a version it does not show.
        if versions.unchanged(table.id, version) {
            kept_names.keep(
                table.id,
                version,
                key_parts,
                names.clone(),
                |table, version| versions.unchanged(table, version),
            );
        }
        Ok(names)
    }

    /// The first `limit` partition names of `table`, read from its keys.
    fn read_names(
        &self,
        table: &PartitionedTable,
        key_parts: &[String],
        limit: usize,
    ) -> Result<PartitionNames> {
        let mut names = PartitionNames::new();
        let mut scratch = Vec::new();
        for entry in
            kv::scan(self.reader(), table.all_partitions(), SCAN_PAGE_ENTRY_COUNT).take(limit)
        {
            let (key, _) = entry?;
            names.push_with(|text| push_name_of_key(text, key_parts, &key, &mut scratch))?;
        }
        Ok(names)
    }

    /// How many partitions `selection` holds; only keys are read.
    pub fn count_partitions_selected(
        &self,
        catalog: &str,
        database: &str,
        name: &str,
        selection: PartitionSelection<'_>,
    ) -> Result<u64> {
        let table = resolve_table(self.reader(), catalog, database, name)?;
        let count = self.read_partitions_at_version(table.id, |version| {
            let mut count = 0u64;
            let read = (version, Read::KeysOnly);
            self.visit(&table, selection, -1, read, &mut |_, _, _| {
                count += 1;
                Ok(())
            })?;
            Ok(count)
        })?;
        Ok(count)
    }

    /// Every partition, at most `max_parts`; Hive's `get_partitions`.
    pub fn list_partitions(
        &self,
        catalog: &str,
        database: &str,
        name: &str,
        max_parts: i32,
    ) -> Result<Vec<Partition>> {
        let selection = PartitionSelection::All;
        self.list_partitions_selected(catalog, database, name, selection, max_parts, false)
    }

    /// Every partition name, at most `max_parts`; Hive's
    /// `get_partition_names`.
    pub fn list_partition_names(
        &self,
        catalog: &str,
        database: &str,
        name: &str,
        max_parts: i32,
    ) -> Result<Vec<String>> {
        let selection = PartitionSelection::All;
        self.list_partition_names_selected(catalog, database, name, selection, max_parts)
    }

    /// The partitions matching `partial` values; Hive's `get_partitions_ps`.
    pub fn list_partitions_ps(
        &self,
        catalog: &str,
        database: &str,
        name: &str,
        partial: &[String],
        max_parts: i32,
    ) -> Result<Vec<Partition>> {
        let selection = PartitionSelection::PartialValues(partial);
        self.list_partitions_selected(catalog, database, name, selection, max_parts, false)
    }

    /// The names of the partitions matching `partial` values; Hive's
    /// `get_partition_names_ps`.
    pub fn list_partition_names_ps(
        &self,
        catalog: &str,
        database: &str,
        name: &str,
        partial: &[String],
        max_parts: i32,
    ) -> Result<Vec<String>> {
        let selection = PartitionSelection::PartialValues(partial);
        self.list_partition_names_selected(catalog, database, name, selection, max_parts)
    }

    /// The partitions passing `filter`; Hive's `get_partitions_by_filter`.
    pub fn list_partitions_by_filter(
        &self,
        catalog: &str,
        database: &str,
        name: &str,
        filter: &str,
        max_parts: i32,
    ) -> Result<Vec<Partition>> {
        let selection = PartitionSelection::Filter(filter);
        self.list_partitions_selected(catalog, database, name, selection, max_parts, false)
    }

    /// The names of the partitions passing `filter`.
    pub fn list_partition_names_by_filter(
        &self,
        catalog: &str,
        database: &str,
        name: &str,
        filter: &str,
        max_parts: i32,
    ) -> Result<Vec<String>> {
        let selection = PartitionSelection::Filter(filter);
        self.list_partition_names_selected(catalog, database, name, selection, max_parts)
    }

    /// How many partitions pass `filter`; Hive's
    /// `get_num_partitions_by_filter`.
    pub fn get_num_partitions_by_filter(
        &self,
        catalog: &str,
        database: &str,
        name: &str,
        filter: &str,
    ) -> Result<u64> {
        let selection = PartitionSelection::Filter(filter);
        self.count_partitions_selected(catalog, database, name, selection)
    }

    /// The partitions named in `names`, in value order; names of no
    /// partition are skipped; Hive's `get_partitions_by_names`.
    pub fn get_partitions_by_names(
        &self,
        catalog: &str,
        database: &str,
        name: &str,
        names: &[String],
    ) -> Result<Vec<Partition>> {
        let names: Vec<&str> = names.iter().map(String::as_str).collect();
        let selection = PartitionSelection::Names(&names);
        self.list_partitions_selected(catalog, database, name, selection, -1, false)
    }

    fn select(
        &self,
        table: &PartitionedTable,
        selection: PartitionSelection<'_>,
        max_parts: i32,
    ) -> Result<Vec<Entry>> {
        self.read_partitions_at_version(table.id, |version| {
            self.select_at(table, selection, max_parts, version)
        })
    }

    /// [`Store::select`] as one attempt of a read at `version` (see
    /// [`Store::read_partitions_at_version`]).
    pub(crate) fn select_at(
        &self,
        table: &PartitionedTable,
        selection: PartitionSelection<'_>,
        max_parts: i32,
        version: u64,
    ) -> Result<Vec<Entry>> {
        let mut entries = Vec::new();
        let read = (version, Read::Records);
        self.visit(
            table,
            selection,
            max_parts,
            read,
            &mut |key, stored, values| {
                let stored = stored.ok_or_else(|| {
                    Error::Internal("a listing of records visited a key alone".to_string())
                })?;
                entries.push((key, stored, values));
                Ok(())
            },
        )?;
        Ok(entries)
    }

    /// Calls `visit` on each selected partition in key order, at most `max_parts` times
    /// (below zero: no limit). `version` is the table's stripe version of the read this is
    /// part of ([`Store::read_partitions_at_version`]).
    fn visit(
        &self,
        table: &PartitionedTable,
        selection: PartitionSelection<'_>,
        max_parts: i32,
        (version, read): (u64, Read),
        visit: &mut Visit<'_>,
    ) -> Result<()> {
        let mut remaining = usize::try_from(max_parts).unwrap_or(usize::MAX);
        if remaining == 0 {
            return Ok(());
        }
        if let PartitionSelection::Names(names) = selection {
            return self.visit_names(table, names, &mut remaining, visit);
        }
        let plan = plan(table, selection)?;
        if plan.whole_table && !matches!(plan.keep, Keep::Every) {
            if let Some(key_parts) = plain_key_parts(table) {
                let names = self.every_name_at(table, &key_parts, version)?;
                return self.visit_listed(
                    table, &plan.keep, &key_parts, &names, read, remaining, visit,
                );
            }
        }
        for range in plan.ranges {
            for entry in scan_range(self.reader(), range) {
                let (key, stored, values) = entry?;
                if !plan.keep.keeps(&values) {
                    continue;
                }
                visit(key, Some(stored), values)?;
                remaining -= 1;
                if remaining == 0 {
                    return Ok(());
                }
            }
        }
        Ok(())
    }

    /// [`Store::visit`] over the partitions of a name listing of the whole table that `keep`
    /// keeps: the test runs on the names (`kept_selection.rs`), and only the kept partitions'
    /// records are read.
    #[allow(clippy::too_many_arguments)]
    fn visit_listed(
        &self,
        table: &PartitionedTable,
        keep: &Keep,
        key_parts: &[String],
        names: &PartitionNames,
        read: Read,
        remaining: usize,
        visit: &mut Visit<'_>,
    ) -> Result<()> {
        let selected = listed_indexes(table, key_parts, names, Scope::Whole, keep, remaining)?;
        for index in selected {
            let values = listed_values(table, key_parts, names.get(index as usize))?;
            let key = keys::partition_key(table.id, &values);
            let stored = match read {
                Read::KeysOnly => None,
                // Missing only if a batch removed it since the listing, and then the read
                // this is part of sees the version move and starts again.
                Read::Records => match self.reader().get(&key)? {
                    Some(stored) => Some(stored),
                    None => continue,
                },
            };
            visit(KvBytes::from_shared(key.into()), stored, values)?;
        }
        Ok(())
    }

    fn visit_names(
        &self,
        table: &PartitionedTable,
        names: &[&str],
        remaining: &mut usize,
        visit: &mut Visit<'_>,
    ) -> Result<()> {
        let plain_parts = plain_key_parts(table);
        // Sorted by key, which is value order, and read in that order.
        let mut wanted: Vec<(Vec<u8>, Vec<String>)> = names
            .iter()
            .filter_map(|name| {
                plain_parts
                    .as_deref()
                    .and_then(|parts| plain_values_of_name(parts, name))
                    .or_else(|| values_of_name(table, name))
            })
            .map(|values| (keys::partition_key(table.id, &values), values))
            .collect();
        wanted.sort_unstable_by(|left, right| left.0.cmp(&right.0));
        wanted.dedup_by(|left, right| left.0 == right.0);
        for (key, values) in wanted {
            let Some(stored) = self.reader().get(&key)? else {
                continue;
            };
            visit(KvBytes::from_shared(key.into()), Some(stored), values)?;
            *remaining -= 1;
            if *remaining == 0 {
                break;
            }
        }
        Ok(())
    }
}

/// The `k=` prefix of each key of `table` when every key is written unchanged in names
/// (lower case, nothing escaped), as nearly always; `None` otherwise.
pub(crate) fn plain_key_parts(table: &PartitionedTable) -> Option<Vec<String>> {
    let names = table.key_names();
    let plain = |key: &&str| is_plain(key) && key.to_lowercase() == **key;
    names
        .iter()
        .all(plain)
        .then(|| names.iter().map(|key| format!("{key}=")).collect())
}

/// [`values_of_name`] for the names planners send, without parsing and rebuilding them: a name
/// made of the keys' prefixes (`key_parts`, from [`plain_key_parts`]) and values that need no
/// escaping is read by slicing it; anything else (`None`) is left to [`values_of_name`], which
/// reads it exactly so whenever this reads it at all.
fn plain_values_of_name(key_parts: &[String], name: &str) -> Option<Vec<String>> {
    let mut values = Vec::with_capacity(key_parts.len());
    slice_plain_values(key_parts, name, &mut values)
        .then(|| values.into_iter().map(str::to_string).collect())
}

/// Sets `values` to the values of plain name `name` (see [`plain_values_of_name`]), sliced
/// from it; false if it is not a plain name of these keys.
fn slice_plain_values<'n>(key_parts: &[String], name: &'n str, values: &mut Vec<&'n str>) -> bool {
    values.clear();
    let mut rest = name;
    for (index, key_part) in key_parts.iter().enumerate() {
        let component = if index == 0 {
            Some(rest)
        } else {
            rest.strip_prefix('/')
        };
        let Some(after_key) = component.and_then(|text| text.strip_prefix(key_part.as_str()))
        else {
            return false;
        };
        let end = after_key.find('/').unwrap_or(after_key.len());
        let value = &after_key[..end];
        if !is_plain(value) {
            return false;
        }
        values.push(value);
        rest = &after_key[end..];
    }
    rest.is_empty()
}

/// Appends the name of the partition of `values` to `text`, from the table's `k=` prefixes.
fn push_joined_name(text: &mut String, key_parts: &[String], values: &[String]) {
    for (index, (key_part, value)) in key_parts.iter().zip(values).enumerate() {
        if index > 0 {
            text.push('/');
        }
        text.push_str(key_part);
        push_escaped(text, value);
    }
}

/// The ranges to scan and the test to keep a partition, for `selection`
/// (not names).
pub(crate) fn plan(table: &PartitionedTable, selection: PartitionSelection<'_>) -> Result<Plan> {
    match selection {
        PartitionSelection::All | PartitionSelection::Names(_) => Ok(Plan {
            ranges: vec![table.all_partitions()],
            keep: Keep::Every,
            whole_table: true,
            value_ranges: Vec::new(),
        }),
        PartitionSelection::PartialValues(partial) => plan_partial(table, partial),
        PartitionSelection::Filter(text) => {
            let filter = PartitionFilter::parse(text)?.compile(&table.table.partition_keys)?;
            let value_ranges = filter.value_ranges();
            let ranges = match &value_ranges {
                Some(ranges) => merge_ranges(
                    ranges
                        .iter()
                        .map(|range| key_range(table.id, range))
                        .collect(),
                ),
                None => vec![table.all_partitions()],
            };
            Ok(Plan {
                ranges,
                keep: Keep::Filter(filter),
                whole_table: value_ranges.is_none(),
                value_ranges: value_ranges.unwrap_or_default(),
            })
        }
    }
}

/// Hive's `get_partitions_ps`: values for leading keys, empty = any. Unlike
/// The values of `table`'s partitions that match the partial values
/// `partial` (an empty value matches any), in key order, read from `reader`
/// (a writer's committed state).
pub(crate) fn partitions_matching_values(
    reader: &dyn KvBackend,
    table: &PartitionedTable,
    partial: &[String],
) -> Result<Vec<Vec<String>>> {
    let plan = plan_partial(table, partial)?;
    let mut matching = Vec::new();
    for range in plan.ranges {
        for entry in scan_range(reader, range) {
            let (_, _, values) = entry?;
            if plan.keep.keeps(&values) {
                matching.push(values);
            }
        }
    }
    Ok(matching)
}

/// Hive's regex matching (where `.` in a value matches any character), a
/// non-empty value matches exactly.
fn plan_partial(table: &PartitionedTable, partial: &[String]) -> Result<Plan> {
    let key_count = table.table.partition_keys.len();
    if partial.len() > key_count {
        return Err(Error::Refused(format!(
            "Incorrect number of partition values. numPartKeys={key_count}, part_val={}",
            partial.len()
        )));
    }
    let leading: Vec<String> = partial
        .iter()
        .take_while(|value| !value.is_empty())
        .cloned()
        .collect();
    let whole_table = leading.is_empty();
    let range = if whole_table {
        table.all_partitions()
    } else {
        KeyRange::prefix(&keys::partition_key(table.id, &leading))
    };
    let keep = if partial.iter().all(String::is_empty) {
        Keep::Every
    } else {
        Keep::Partial(partial.to_vec())
    };
    let value_ranges = if whole_table {
        Vec::new()
    } else {
        vec![ValueRange {
            prefix: leading,
            lower: Bound::Unbounded,
            upper: Bound::Unbounded,
        }]
    };
    Ok(Plan {
        ranges: vec![range],
        keep,
        whole_table,
        value_ranges,
    })
}

/// The key range of the partitions whose values fall in `range`, as
/// `[start, end)`.
fn key_range(table: TableId, range: &ValueRange) -> KeyRange {
    let prefix = keys::partition_key(table, &range.prefix);
    let bounded = |value: &String| {
        keys::partition_key(
            table,
            &[&range.prefix[..], std::slice::from_ref(value)].concat(),
        )
    };
    let start = match &range.lower {
        Bound::Unbounded if range.prefix.is_empty() => keys::partition_values_start(table),
        Bound::Unbounded => prefix.clone(),
        Bound::Included(value) => bounded(value),
        Bound::Excluded(value) => successor_or_max(&bounded(value)),
    };
    let end = match &range.upper {
        Bound::Unbounded => successor_or_max(&prefix),
        Bound::Excluded(value) => bounded(value),
        Bound::Included(value) => successor_or_max(&bounded(value)),
    };
    KeyRange::between(&start, &end)
}

/// The smallest key above every key starting with `prefix`. Partition keys
/// start with `0x07`, so one always exists.
fn successor_or_max(prefix: &[u8]) -> Vec<u8> {
    kv::prefix_successor(prefix).unwrap_or_else(|| vec![0xFF; prefix.len() + 1])
}

/// Sorts `[start, end)` ranges and merges overlapping ones, so a scan
/// visits each key once, in key order.
fn merge_ranges(mut ranges: Vec<KeyRange>) -> Vec<KeyRange> {
    let bounds = |range: &KeyRange| match (&range.start, &range.end) {
        (Bound::Included(start), Bound::Excluded(end)) => (start.clone(), end.clone()),
        _ => unreachable!("key_range builds [start, end) ranges"),
    };
    ranges.retain(|range| !range.is_empty());
    ranges.sort_by(|left, right| bounds(left).0.cmp(&bounds(right).0));
    let mut merged: Vec<(Vec<u8>, Vec<u8>)> = Vec::with_capacity(ranges.len());
    for range in &ranges {
        let (start, end) = bounds(range);
        match merged.last_mut() {
            Some((_, last_end)) if start <= *last_end => {
                if end > *last_end {
                    *last_end = end;
                }
            }
            _ => merged.push((start, end)),
        }
    }
    merged
        .into_iter()
        .map(|(start, end)| KeyRange::between(&start, &end))
        .collect()
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;
    use crate::model::partition_name::make_partition_name;
    use crate::partitions::partitioned::slice_listed_values;

    fn table(keys: &[&str]) -> PartitionedTable {
        PartitionedTable::of_string_keys(keys)
    }

    #[test]
    fn plain_names_are_sliced_and_others_left_to_the_full_parse() {
        let parts = plain_key_parts(&table(&["ds", "hr"])).unwrap();
        let values = |list: &[&str]| Some(list.iter().map(|v| v.to_string()).collect::<Vec<_>>());
        assert_eq!(
            plain_values_of_name(&parts, "ds=2024-01-01/hr=3"),
            values(&["2024-01-01", "3"])
        );
        for unsure in [
            "ds=a%2Fb/hr=3",
            "ds=a/hr=",
            "ds=a",
            "ds=a/hr=1/x=2",
            "hr=1/ds=a",
            "ds=a//hr=1",
        ] {
            assert_eq!(plain_values_of_name(&parts, unsure), None, "{unsure}");
        }
        assert!(plain_key_parts(&table(&["Ds"])).is_none());
        assert!(plain_key_parts(&table(&["d:s"])).is_none());
    }

    proptest! {
        /// Whenever the slicing reads a name, it reads what the full parse reads.
        #[test]
        fn plain_values_agree_with_the_full_parse(
            name in "((ds|hr|x)=([a-z0-9%/=:_-]|\\.){0,6}/?){1,3}",
        ) {
            let table = table(&["ds", "hr"]);
            let parts = plain_key_parts(&table).unwrap();
            if let Some(values) = plain_values_of_name(&parts, &name) {
                prop_assert_eq!(Some(values), values_of_name(&table, &name));
            }
        }

        /// A name made as listings make them is either sliced into its values or left to the
        /// full parse, never misread.
        #[test]
        fn listed_names_slice_into_their_values(
            values in proptest::collection::vec("[a-z0-9%/=:_ .é-]{1,6}", 2),
        ) {
            let table = table(&["ds", "hr"]);
            let parts = plain_key_parts(&table).unwrap();
            let name = make_partition_name(&table.key_names(), &values);
            let mut sliced = Vec::new();
            if slice_listed_values(&parts, &name, &mut sliced) {
                prop_assert_eq!(&sliced, &values);
            } else {
                prop_assert!(name.contains('%'), "{} not sliced", name);
            }
        }
    }
}
