//! Selections answered from a table's full name listing instead of key scans: which names
//! (by index) a selection keeps.
//!
//! The names of a listing are in key order, and key order is the order of the value tuples
//! compared byte by byte (`keys::push_component` keeps the order of its bytes, and a shorter
//! value sorts before its extensions), which is the order in which a filter's value ranges
//! are stated (`ValueRange`, byte order, whatever the key's type). So the names of a range
//! are found by binary search over the values sliced from the names, and the whole selection
//! is then tested on the names in those index ranges: the ranges are a superset, as the key
//! ranges of a scan are.

use std::cmp::Ordering;
use std::ops::Bound;

use crate::error::{Error, Result};
use crate::partitions::filter::ValueRange;
use crate::partitions::kept_encodings::NameIndex;
use crate::partitions::list::Keep;
use crate::partitions::listed_columns::{KeyColumn, ListedColumns};
use crate::partitions::name_listing::PartitionNames;
use crate::partitions::partitioned::PartitionedTable;
use crate::partitions::partitioned::{slice_listed_values, values_of_name};

/// Which names a selection looks at before its test.
pub(crate) enum Scope<'s> {
    /// Every name.
    Whole,
    /// The names whose values fall in one of these ranges.
    Ranges(&'s [ValueRange]),
}

/// The values of the names of a listing, sliced from them (or parsed, for the rare name
/// with an escaped character).
struct ListedValues<'n> {
    table: &'n PartitionedTable,
    key_parts: &'n [String],
    names: &'n PartitionNames,
    sliced: Vec<&'n str>,
}

impl<'n> ListedValues<'n> {
    /// `test` of the values of name `index`.
    fn with<R>(&mut self, index: usize, test: impl FnOnce(&[&str]) -> R) -> Result<R> {
        let name = self.names.get(index);
        if slice_listed_values(self.key_parts, name, &mut self.sliced) {
            return Ok(test(&self.sliced));
        }
        let values = values_of_name(self.table, name).ok_or_else(|| {
            Error::Internal(format!("a kept partition name {name:?} does not parse"))
        })?;
        let values: Vec<&str> = values.iter().map(String::as_str).collect();
        Ok(test(&values))
    }

    /// The first index in `[0, len)` whose values are not `before` (which holds for a
    /// prefix of the names).
    fn partition_point(&mut self, before: impl Fn(&[&str]) -> bool) -> Result<usize> {
        let (mut low, mut high) = (0, self.names.len());
        while low < high {
            let middle = low + (high - low) / 2;
            if self.with(middle, &before)? {
                low = middle + 1;
            } else {
                high = middle;
            }
        }
        Ok(low)
    }
}

/// The values of `name`, a name of the full listing of `table` built with `key_parts`.
pub(crate) fn listed_values(
    table: &PartitionedTable,
    key_parts: &[String],
    name: &str,
) -> Result<Vec<String>> {
    let mut sliced = Vec::with_capacity(key_parts.len());
    if slice_listed_values(key_parts, name, &mut sliced) {
        return Ok(sliced.into_iter().map(str::to_string).collect());
    }
    values_of_name(table, name)
        .ok_or_else(|| Error::Internal(format!("a kept partition name {name:?} does not parse")))
}

/// How `values` compare with `prefix` on the prefix's keys.
fn compare_prefix(values: &[&str], prefix: &[String]) -> Ordering {
    for (value, wanted) in values.iter().zip(prefix) {
        match (*value).cmp(wanted.as_str()) {
            Ordering::Equal => continue,
            other => return other,
        }
    }
    Ordering::Equal
}

/// Whether `values` sort before every partition of `range`.
fn below(values: &[&str], range: &ValueRange) -> bool {
    match compare_prefix(values, &range.prefix) {
        Ordering::Less => true,
        Ordering::Greater => false,
        Ordering::Equal => {
            let Some(next) = values.get(range.prefix.len()) else {
                return false;
            };
            match &range.lower {
                Bound::Unbounded => false,
                Bound::Included(lower) => *next < lower.as_str(),
                Bound::Excluded(lower) => *next <= lower.as_str(),
            }
        }
    }
}

/// Whether `values` sort before no partition after `range`: they are in it or below it.
fn not_above(values: &[&str], range: &ValueRange) -> bool {
    match compare_prefix(values, &range.prefix) {
        Ordering::Less => true,
        Ordering::Greater => false,
        Ordering::Equal => {
            let Some(next) = values.get(range.prefix.len()) else {
                return true;
            };
            match &range.upper {
                Bound::Unbounded => true,
                Bound::Excluded(upper) => *next < upper.as_str(),
                Bound::Included(upper) => *next <= upper.as_str(),
            }
        }
    }
}

/// The indexes, in `names` (the full listing of `table`, in key order, built with
/// `key_parts` of plain keys), of the partitions in `scope` that `keep` keeps, in order, at
/// most `limit`.
pub(crate) fn listed_indexes(
    table: &PartitionedTable,
    key_parts: &[String],
    names: &PartitionNames,
    scope: Scope<'_>,
    keep: &Keep,
    limit: usize,
) -> Result<Vec<u32>> {
    let mut values = ListedValues {
        table,
        key_parts,
        names,
        sliced: Vec::with_capacity(key_parts.len()),
    };
    let mut spans: Vec<(usize, usize)> = match scope {
        Scope::Whole => vec![(0, names.len())],
        Scope::Ranges(ranges) => {
            let mut spans = Vec::with_capacity(ranges.len());
            for range in ranges {
                let start = values.partition_point(|listed| below(listed, range))?;
                let end = values.partition_point(|listed| not_above(listed, range))?;
                if start < end {
                    spans.push((start, end));
                }
            }
            spans
        }
    };
    spans.sort_unstable();
    let columns = match by_columns(keep, key_parts.len()) {
        true => Some(names.columns(table, key_parts)?),
        false => None,
    };
    let tests = match &columns {
        Some(columns) => column_tests(keep, columns),
        None => Vec::new(),
    };
    let mut selected = Vec::new();
    let mut next = 0;
    for (start, end) in spans {
        for index in start.max(next)..end {
            if selected.len() >= limit {
                return Ok(selected);
            }
            let kept = match columns {
                Some(_) => tests.iter().all(|test| test.passes(index)),
                None => values.with(index, |listed| keep.keeps(listed))?,
            };
            if kept {
                selected.push(index_u32(index)?);
            }
        }
        next = next.max(end);
    }
    Ok(selected)
}

/// Whether `keep` is a test of single keys' values (of `key_count` keys), which the
/// listing's columns answer.
fn by_columns(keep: &Keep, key_count: usize) -> bool {
    match keep {
        Keep::Every => false,
        Keep::Partial(_) => true,
        Keep::Filter(filter) => filter.single_key().is_some_and(|key| key < key_count),
    }
}

/// One key's verdict for each of its distinct values.
struct ColumnTest<'c> {
    column: &'c KeyColumn,
    passes: Vec<bool>,
}

impl ColumnTest<'_> {
    fn passes(&self, index: usize) -> bool {
        self.passes[self.column.ids[index] as usize]
    }
}

/// The tests of `keep` (for which [`by_columns`] holds) on `columns`: a name is kept when it
/// passes all of them.
fn column_tests<'c>(keep: &Keep, columns: &'c ListedColumns) -> Vec<ColumnTest<'c>> {
    let test = |key: usize, verdict: &dyn Fn(&str) -> bool| {
        let column = &columns.keys[key];
        let passes = column.distinct.iter().map(|value| verdict(value)).collect();
        ColumnTest { column, passes }
    };
    match keep {
        Keep::Every => Vec::new(),
        Keep::Partial(partial) => partial
            .iter()
            .enumerate()
            .filter(|(key, wanted)| !wanted.is_empty() && *key < columns.keys.len())
            .map(|(key, wanted)| test(key, &|value| value == wanted))
            .collect(),
        Keep::Filter(filter) => filter
            .single_key()
            .map(|key| test(key, &|value| filter.matches_value(key, value)))
            .into_iter()
            .collect(),
    }
}

/// The indexes of the listed partitions named in `wanted` (names of no partition skipped,
/// each once), in key order, at most `limit`.
pub(crate) fn named_indexes(
    names: &PartitionNames,
    index: &NameIndex,
    wanted: &[&str],
    limit: usize,
) -> Vec<u32> {
    let mut selected = Vec::with_capacity(wanted.len());
    index.find_all(names, wanted, &mut selected);
    selected.sort_unstable();
    selected.dedup();
    selected.truncate(limit);
    selected
}

fn index_u32(index: usize) -> Result<u32> {
    u32::try_from(index)
        .map_err(|_| Error::Internal(format!("a kept listing of more than {} names", u32::MAX)))
}
