//! Hive's `ValidWriteIdList` string, a reader's snapshot of one table's write ids:
//! `<db.table>:<high water mark>:<min open write id>[:<open ids>[:<aborted ids>]]`, ids comma
//! separated (`ValidReaderWriteIdList`). A write id is visible to the reader when it is at or
//! below the high water mark and neither open nor aborted.

use crate::error::{Error, Result};

use super::model::TXN_ID_LIST_LEN_MAX;

/// What a `ValidWriteIdList` string says.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) struct WriteIdSnapshot {
    pub high_water_mark: u64,
    /// Write ids open when the snapshot was taken, ascending.
    pub open: Vec<u64>,
    /// Aborted write ids, ascending.
    pub aborted: Vec<u64>,
    /// The lowest write id open when the snapshot was taken (`None`: Java's `Long.MAX_VALUE`,
    /// nothing open).
    pub min_open: Option<u64>,
}

impl WriteIdSnapshot {
    pub(crate) fn parse(text: &str) -> Result<WriteIdSnapshot> {
        let malformed = |why: &str| {
            let shown: String = text.chars().take(200).collect();
            Error::InvalidInput(format!("validWriteIdList {shown:?} is malformed: {why}"))
        };
        let parts: Vec<&str> = text.split(':').collect();
        if parts.len() < 3 || parts.len() > 5 {
            return Err(malformed(
                "it needs <table>:<high water mark>:<min open write id>[:<open>[:<aborted>]]",
            ));
        }
        let parse_id = |item: &str| {
            item.trim()
                .parse::<u64>()
                .map_err(|_| malformed(&format!("{item:?} is not a write id")))
        };
        let high_water_mark = parse_id(parts[1])?;
        let min_open = match parts[2].trim().parse::<i64>() {
            Ok(i64::MAX) => None,
            Ok(value) => Some(u64::try_from(value).unwrap_or(0)),
            Err(_) => return Err(malformed(&format!("{:?} is not a write id", parts[2]))),
        };
        let list = |index: usize, what: &str| -> Result<Vec<u64>> {
            let mut ids = Vec::new();
            let listed = parts.get(index).copied().unwrap_or("");
            for item in listed.split(',').filter(|item| !item.trim().is_empty()) {
                if ids.len() >= TXN_ID_LIST_LEN_MAX {
                    return Err(malformed(&format!(
                        "it lists more than {TXN_ID_LIST_LEN_MAX} {what} write ids"
                    )));
                }
                let write_id = parse_id(item)?;
                if write_id == 0 || write_id > high_water_mark {
                    return Err(malformed(&format!(
                        "{what} write id {write_id} is not between 1 and the high water mark"
                    )));
                }
                ids.push(write_id);
            }
            ids.sort_unstable();
            ids.dedup();
            Ok(ids)
        };
        Ok(WriteIdSnapshot {
            high_water_mark,
            open: list(3, "open")?,
            aborted: list(4, "aborted")?,
            min_open,
        })
    }

    /// Hive's `isWriteIdValid`: committed as the reader sees it.
    pub(crate) fn is_valid(&self, write_id: u64) -> bool {
        write_id <= self.high_water_mark
            && self.open.binary_search(&write_id).is_err()
            && self.aborted.binary_search(&write_id).is_err()
    }

    /// Hive's `isWriteIdAborted`.
    pub(crate) fn is_aborted(&self, write_id: u64) -> bool {
        self.aborted.binary_search(&write_id).is_ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn write_ids_are_valid_below_the_mark_unless_open_or_aborted() {
        let snapshot = WriteIdSnapshot::parse("db.t:9:4:4,6:5").unwrap();
        let valid: Vec<u64> = (1..=11).filter(|id| snapshot.is_valid(*id)).collect();
        assert_eq!(valid, vec![1, 2, 3, 7, 8, 9]);
        assert!(snapshot.is_aborted(5) && !snapshot.is_aborted(4));
        assert_eq!(snapshot.min_open, Some(4));
        let none_open = WriteIdSnapshot::parse("db.t:3:9223372036854775807::").unwrap();
        assert_eq!(none_open.min_open, None);
        // Java's split drops the empty lists at the end; both forms read alike.
        assert_eq!(
            WriteIdSnapshot::parse("db.t:3:9223372036854775807::").unwrap(),
            WriteIdSnapshot::parse("db.t:3:9223372036854775807").unwrap()
        );
        for bad in ["db.t", "db.t:x:1", "db.t:3:1:4", "db.t:3:1::0"] {
            assert!(WriteIdSnapshot::parse(bad).is_err(), "{bad}");
        }
    }
}
