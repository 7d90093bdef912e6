//! Statistics of transactional tables against a query's snapshot, as Hive 4 keeps them with
//! `hive.txn.stats.enabled` (its default): a table's or partition's statistics carry the write
//! id of the write that made them (its `writeId`), and are valid for a reader whose
//! `validWriteIdList` sees that write and while `COLUMN_STATS_ACCURATE` says the basic
//! statistics are accurate (`ObjectStore.isCurrentStatsValidForTheQuery`).
//!
//! A write of column statistics to a transactional table must bring its write id and snapshot
//! when it changes an accurate state (`verifyStatsChangeCtx`), drops `COLUMN_STATS_ACCURATE`
//! when the statistics it replaces are not in its snapshot, and records its write id. Reads
//! given a snapshot leave out statistics it cannot see (Hive's handler answers nothing rather
//! than flag them).

use std::collections::BTreeMap;

use super::accurate::{StatsAccuracy, COLUMN_STATS_ACCURATE};
use super::write::{existing_partition, resolve_stats_table};
use super::StatsWriteOptions;
use crate::error::{Error, Result};
use crate::store::Store;
use crate::txns::WriteIdSnapshot;

/// Hive's `isTransactionalTable`: parameter `transactional` is `true`, any case.
pub fn is_transactional(parameters: &BTreeMap<String, String>) -> bool {
    parameters
        .get("transactional")
        .is_some_and(|value| value.eq_ignore_ascii_case("true"))
}

fn basic_stats_accurate(parameters: &BTreeMap<String, String>) -> bool {
    StatsAccuracy::parse(parameters.get(COLUMN_STATS_ACCURATE).map(String::as_str)).basic
}

/// Whether statistics written under `stats_write_id` with `parameters` are valid for a reader
/// of `snapshot`; a `complete_writer` (a write replacing them) may also replace statistics
/// not marked accurate, or of an aborted write.
fn valid_for(
    parameters: &BTreeMap<String, String>,
    stats_write_id: i64,
    snapshot: Option<&WriteIdSnapshot>,
    complete_writer: bool,
) -> bool {
    // Statistics of no write id are not transactional.
    let Ok(write_id) = u64::try_from(stats_write_id) else {
        return true;
    };
    if write_id == 0 {
        return true;
    }
    if !complete_writer && !basic_stats_accurate(parameters) {
        return false;
    }
    snapshot.is_some_and(|snapshot| {
        snapshot.is_valid(write_id) || (complete_writer && snapshot.is_aborted(write_id))
    })
}

/// The snapshot a write or read names, parsed.
fn parse_snapshot(text: Option<&str>) -> Result<Option<WriteIdSnapshot>> {
    text.map(WriteIdSnapshot::parse).transpose()
}

/// What a write of column statistics does to the parameters and write id of a transactional
/// table or partition (`object`, its name for messages): `old` its parameters before the
/// write, `parameters` after it (columns marked accurate).
pub(crate) fn settle_transactional_write(
    object: &str,
    old: &BTreeMap<String, String>,
    parameters: &mut BTreeMap<String, String>,
    write_id: &mut i64,
    options: &StatsWriteOptions,
) -> Result<()> {
    let snapshot = parse_snapshot(options.valid_write_ids.as_deref())?;
    let has_context = snapshot.is_some() && options.write_id > 0;
    if !has_context && basic_stats_accurate(parameters) {
        // A change of an accurate state without the write's transactional context.
        let shown = |parameters: &BTreeMap<String, String>| {
            parameters
                .get(COLUMN_STATS_ACCURATE)
                .cloned()
                .unwrap_or_else(|| "null".to_string())
        };
        return Err(Error::Refused(format!(
            "Cannot change stats state for a transactional table {object} without providing \
             the transactional write state for verification (new write ID {}, valid write IDs \
             {}; current state {}; new state {}",
            options.write_id,
            options.valid_write_ids.as_deref().unwrap_or("null"),
            shown(old),
            shown(parameters),
        )));
    }
    if !valid_for(old, *write_id, snapshot.as_ref(), true) {
        parameters.remove(COLUMN_STATS_ACCURATE);
    }
    *write_id = options.write_id;
    Ok(())
}

impl Store {
    /// Whether the table-level statistics of `catalog.database.name` are valid for a reader
    /// of `valid_write_ids`: always for a table that is not transactional.
    pub fn table_statistics_visible(
        &self,
        catalog: &str,
        database: &str,
        name: &str,
        valid_write_ids: &str,
    ) -> Result<bool> {
        let table = resolve_stats_table(self.reader(), catalog, database, name)?.table;
        if !is_transactional(&table.parameters) {
            return Ok(true);
        }
        let snapshot = WriteIdSnapshot::parse(valid_write_ids)?;
        Ok(valid_for(
            &table.parameters,
            table.write_id,
            Some(&snapshot),
            false,
        ))
    }

    /// Which of `names` (partitions of `catalog.database.name`) hold statistics a reader of
    /// `valid_write_ids` may not see, as normalised names; none for a table that is not
    /// transactional, nor for a name of no partition.
    pub fn partition_statistics_hidden(
        &self,
        catalog: &str,
        database: &str,
        name: &str,
        names: &[String],
        valid_write_ids: &str,
    ) -> Result<Vec<String>> {
        let table = resolve_stats_table(self.reader(), catalog, database, name)?;
        if !is_transactional(&table.table.parameters) {
            return Ok(Vec::new());
        }
        let snapshot = WriteIdSnapshot::parse(valid_write_ids)?;
        let mut hidden = Vec::new();
        for partition_name in names {
            let Some((_, record)) = existing_partition(self.reader(), &table, partition_name)?
            else {
                continue;
            };
            if !valid_for(&record.parameters, record.write_id, Some(&snapshot), false) {
                hidden.push(super::normalize_partition_name(partition_name));
            }
        }
        Ok(hidden)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parameters(accuracy: &str) -> BTreeMap<String, String> {
        BTreeMap::from([(COLUMN_STATS_ACCURATE.to_string(), accuracy.to_string())])
    }

    #[test]
    fn statistics_are_valid_for_readers_that_see_their_write() {
        let accurate = parameters(r#"{"BASIC_STATS":"true"}"#);
        let snapshot = WriteIdSnapshot::parse("db.t:9:4:4:5").unwrap();
        assert!(valid_for(&accurate, -1, None, false));
        assert!(valid_for(&accurate, 3, Some(&snapshot), false));
        assert!(!valid_for(&accurate, 4, Some(&snapshot), false));
        assert!(!valid_for(&accurate, 10, Some(&snapshot), false));
        assert!(!valid_for(&accurate, 3, None, false));
        // Not marked accurate: invalid to readers, replaceable by a complete writer.
        let unmarked = parameters(r#"{"COLUMN_STATS":{"a":"true"}}"#);
        assert!(!valid_for(&unmarked, 3, Some(&snapshot), false));
        assert!(valid_for(&unmarked, 3, Some(&snapshot), true));
        // An aborted write's statistics may be replaced, not read.
        assert!(valid_for(&accurate, 5, Some(&snapshot), true));
        assert!(!valid_for(&accurate, 5, Some(&snapshot), false));
    }

    #[test]
    fn a_write_without_context_may_not_change_an_accurate_state() {
        let options = |write_id, list: Option<&str>| StatsWriteOptions {
            write_id,
            valid_write_ids: list.map(str::to_string),
            ..StatsWriteOptions::default()
        };
        let old = parameters(r#"{"BASIC_STATS":"true"}"#);
        let new = parameters(r#"{"BASIC_STATS":"true","COLUMN_STATS":{"a":"true"}}"#);
        let mut written = new.clone();
        let mut write_id = 2;
        let refused = settle_transactional_write(
            "db.t",
            &old,
            &mut written,
            &mut write_id,
            &options(-1, None),
        )
        .unwrap_err();
        assert!(
            refused.to_string().starts_with(
                "Cannot change stats state for a transactional table db.t without providing the \
                 transactional write state for verification (new write ID -1, valid write IDs \
                 null; current state {\"BASIC_STATS\":\"true\"}; new state"
            ),
            "{refused}"
        );
        assert_eq!((written.clone(), write_id), (new.clone(), 2));
        // With context: the state stays when the old statistics (write 2) are in the
        // snapshot, and goes when they are not (write 8).
        let with_context = options(7, Some("db.t:7:7:7:"));
        for (stored_write_id, kept) in [(2, true), (8, false)] {
            let mut written = new.clone();
            let mut write_id = stored_write_id;
            settle_transactional_write("db.t", &old, &mut written, &mut write_id, &with_context)
                .unwrap();
            assert_eq!(written.contains_key(COLUMN_STATS_ACCURATE), kept);
            assert_eq!(write_id, 7);
        }
        // Without accurate basic statistics no context is needed.
        let mut written = parameters(r#"{"COLUMN_STATS":{"a":"true"}}"#);
        let mut write_id = -1;
        settle_transactional_write(
            "db.t",
            &BTreeMap::new(),
            &mut written,
            &mut write_id,
            &options(-1, None),
        )
        .unwrap();
        assert!(written.contains_key(COLUMN_STATS_ACCURATE));
    }
}
