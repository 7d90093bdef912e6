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
use crate::model::table::{is_transactional, Table};
use crate::store::Store;
use crate::txns::WriteIdSnapshot;

fn basic_stats_accurate(accuracy: Option<&str>) -> bool {
    StatsAccuracy::parse(accuracy).basic
}

/// Whether statistics written under `stats_write_id`, with `accuracy` their
/// `COLUMN_STATS_ACCURATE`, are valid for a reader of `snapshot`; a `complete_writer` (a
/// write replacing them) may also replace statistics not marked accurate, or of an aborted
/// write.
fn valid_for(
    accuracy: Option<&str>,
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
    if !complete_writer && !basic_stats_accurate(accuracy) {
        return false;
    }
    snapshot.is_some_and(|snapshot| {
        snapshot.is_valid(write_id) || (complete_writer && snapshot.is_aborted(write_id))
    })
}

/// The `COLUMN_STATS_ACCURATE` of some parameters.
fn accuracy_of(parameters: &BTreeMap<String, String>) -> Option<&str> {
    parameters.get(COLUMN_STATS_ACCURATE).map(String::as_str)
}

/// How one statistics write sets `COLUMN_STATS_ACCURATE` and the write id of each table or
/// partition it writes: made once a write (the snapshot parsed once), used for each.
pub(crate) struct AccuracyWrite<'a> {
    options: &'a StatsWriteOptions,
    /// For a transactional table: its name for messages and the write's snapshot.
    transactional: Option<(String, Option<WriteIdSnapshot>)>,
}

impl<'a> AccuracyWrite<'a> {
    /// The write of `options` to `table`; a malformed snapshot is refused here, for a
    /// transactional table only (others never read it, as in Hive).
    pub(crate) fn new(table: &Table, options: &'a StatsWriteOptions) -> Result<Self> {
        let transactional = match is_transactional(&table.parameters) {
            true => {
                let snapshot = options.valid_write_ids.as_deref();
                let snapshot = snapshot.map(WriteIdSnapshot::parse).transpose()?;
                Some((format!("{}.{}", table.db_name, table.table_name), snapshot))
            }
            false => None,
        };
        Ok(AccuracyWrite {
            options,
            transactional,
        })
    }

    /// Sets `accuracy` as the `COLUMN_STATS_ACCURATE` of `parameters`, whose statistics were
    /// written under `write_id`. For a transactional table, as Hive 4: a change of an accurate
    /// state without the write's id and snapshot is refused (nothing changed); the state goes
    /// when the snapshot cannot see the statistics replaced; the write's id is recorded.
    pub(crate) fn set(
        &self,
        parameters: &mut BTreeMap<String, String>,
        accuracy: String,
        write_id: &mut i64,
    ) -> Result<()> {
        let Some((object, snapshot)) = &self.transactional else {
            parameters.insert(COLUMN_STATS_ACCURATE.to_string(), accuracy);
            return Ok(());
        };
        let options = self.options;
        let has_context = snapshot.is_some() && options.write_id > 0;
        let old = accuracy_of(parameters);
        if !has_context && basic_stats_accurate(Some(&accuracy)) {
            return Err(Error::Refused(format!(
                "Cannot change stats state for a transactional table {object} without providing \
                 the transactional write state for verification (new write ID {}, valid write IDs \
                 {}; current state {}; new state {accuracy}",
                options.write_id,
                options.valid_write_ids.as_deref().unwrap_or("null"),
                old.unwrap_or("null"),
            )));
        }
        let replaced_visible = valid_for(old, *write_id, snapshot.as_ref(), true);
        parameters.insert(COLUMN_STATS_ACCURATE.to_string(), accuracy);
        if !replaced_visible {
            parameters.remove(COLUMN_STATS_ACCURATE);
        }
        *write_id = options.write_id;
        Ok(())
    }
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
        let accuracy = accuracy_of(&table.parameters);
        Ok(valid_for(accuracy, table.write_id, Some(&snapshot), false))
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
            let accuracy = accuracy_of(&record.parameters);
            if !valid_for(accuracy, record.write_id, Some(&snapshot), false) {
                hidden.push(super::normalize_partition_name(partition_name));
            }
        }
        Ok(hidden)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const BASIC: &str = r#"{"BASIC_STATS":"true"}"#;
    const BASIC_AND_A: &str = r#"{"BASIC_STATS":"true","COLUMN_STATS":{"a":"true"}}"#;
    const ONLY_A: &str = r#"{"COLUMN_STATS":{"a":"true"}}"#;

    fn parameters(accuracy: &str) -> BTreeMap<String, String> {
        BTreeMap::from([(COLUMN_STATS_ACCURATE.to_string(), accuracy.to_string())])
    }

    #[test]
    fn statistics_are_valid_for_readers_that_see_their_write() {
        let snapshot = WriteIdSnapshot::parse("db.t:9:4:4:5").unwrap();
        assert!(valid_for(Some(BASIC), -1, None, false));
        assert!(valid_for(Some(BASIC), 3, Some(&snapshot), false));
        assert!(!valid_for(Some(BASIC), 4, Some(&snapshot), false));
        assert!(!valid_for(Some(BASIC), 10, Some(&snapshot), false));
        assert!(!valid_for(Some(BASIC), 3, None, false));
        // Not marked accurate: invalid to readers, replaceable by a complete writer.
        assert!(!valid_for(Some(ONLY_A), 3, Some(&snapshot), false));
        assert!(valid_for(Some(ONLY_A), 3, Some(&snapshot), true));
        // An aborted write's statistics may be replaced, not read.
        assert!(valid_for(Some(BASIC), 5, Some(&snapshot), true));
        assert!(!valid_for(Some(BASIC), 5, Some(&snapshot), false));
    }

    #[test]
    fn a_write_without_context_may_not_change_an_accurate_state() {
        let options = |write_id, list: Option<&str>| StatsWriteOptions {
            write_id,
            valid_write_ids: list.map(str::to_string),
            ..StatsWriteOptions::default()
        };
        let table = Table {
            db_name: "db".to_string(),
            table_name: "t".to_string(),
            parameters: BTreeMap::from([("transactional".to_string(), "TRUE".to_string())]),
            ..Table::default()
        };
        let without_context = options(-1, None);
        let write = AccuracyWrite::new(&table, &without_context).unwrap();
        let mut written = parameters(BASIC);
        let mut write_id = 2;
        let refused = write
            .set(&mut written, BASIC_AND_A.to_string(), &mut write_id)
            .unwrap_err();
        assert!(
            refused.to_string().starts_with(
                "Cannot change stats state for a transactional table db.t without providing the \
                 transactional write state for verification (new write ID -1, valid write IDs \
                 null; current state {\"BASIC_STATS\":\"true\"}; new state"
            ),
            "{refused}"
        );
        // The refused write changed nothing.
        assert_eq!((written, write_id), (parameters(BASIC), 2));
        // With context: the state is set when the old statistics (write 2) are in the
        // snapshot, and goes when they are not (write 8).
        let with_context = options(7, Some("db.t:7:7:7:"));
        let write = AccuracyWrite::new(&table, &with_context).unwrap();
        for (stored_write_id, kept) in [(2, true), (8, false)] {
            let mut written = parameters(BASIC);
            let mut write_id = stored_write_id;
            write
                .set(&mut written, BASIC_AND_A.to_string(), &mut write_id)
                .unwrap();
            let expected = kept.then_some(BASIC_AND_A);
            assert_eq!(accuracy_of(&written), expected);
            assert_eq!(write_id, 7);
        }
        // Without accurate basic statistics no context is needed.
        let write = AccuracyWrite::new(&table, &without_context).unwrap();
        let mut written = BTreeMap::new();
        let mut write_id = -1;
        write
            .set(&mut written, ONLY_A.to_string(), &mut write_id)
            .unwrap();
        assert_eq!(accuracy_of(&written), Some(ONLY_A));
        // A malformed snapshot is refused for a transactional table, never read for others.
        let malformed = options(7, Some("no snapshot"));
        assert!(AccuracyWrite::new(&table, &malformed).is_err());
        let plain = Table::default();
        let write = AccuracyWrite::new(&plain, &malformed).unwrap();
        let mut written = parameters(BASIC);
        let mut write_id = 3;
        write
            .set(&mut written, BASIC_AND_A.to_string(), &mut write_id)
            .unwrap();
        assert_eq!((accuracy_of(&written), write_id), (Some(BASIC_AND_A), 3));
    }
}
