//! Hive's `ValidTxnList` string: the snapshot of transactions a reader sees.
//!
//! `<high water mark>:<min open txn>:<open ids>:<aborted ids>`, ids comma separated, either
//! list possibly empty; min open is `9223372036854775807` when nothing is open. Everything
//! at or below the high water mark and in neither list is committed.

use std::collections::BTreeSet;

use crate::error::{Error, Result};

/// What a `ValidTxnList` says.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) struct TxnSnapshot {
    pub high_water_mark: u64,
    pub open: BTreeSet<u64>,
    pub aborted: BTreeSet<u64>,
}

/// The most ids a snapshot string may list.
const SNAPSHOT_ID_COUNT_MAX: usize = 10_000_000;

impl TxnSnapshot {
    /// Parses Hive's string form; a malformed one is an error naming the part that is wrong.
    pub(crate) fn parse(text: &str) -> Result<TxnSnapshot> {
        let mut parts = text.split(':');
        let high_water_mark = parse_id(parts.next().unwrap_or(""), text)?;
        let _min_open = parts.next();
        let open = parse_ids(parts.next().unwrap_or(""), text)?;
        let aborted = parse_ids(parts.next().unwrap_or(""), text)?;
        if parts.next().is_some() {
            return Err(malformed(text, "it has more than four ':'-separated parts"));
        }
        Ok(TxnSnapshot {
            high_water_mark,
            open,
            aborted,
        })
    }

    /// Whether `txn_id` is committed in this snapshot.
    pub(crate) fn is_committed(&self, txn_id: u64) -> bool {
        txn_id <= self.high_water_mark
            && !self.open.contains(&txn_id)
            && !self.aborted.contains(&txn_id)
    }
}

fn parse_id(text: &str, whole: &str) -> Result<u64> {
    let value: i64 = text
        .trim()
        .parse()
        .map_err(|_| malformed(whole, &format!("{text:?} is not a transaction id")))?;
    Ok(u64::try_from(value).unwrap_or(0))
}

fn parse_ids(text: &str, whole: &str) -> Result<BTreeSet<u64>> {
    let mut ids = BTreeSet::new();
    for item in text.split(',').filter(|item| !item.trim().is_empty()) {
        if ids.len() >= SNAPSHOT_ID_COUNT_MAX {
            return Err(malformed(whole, "it lists too many transactions"));
        }
        ids.insert(parse_id(item, whole)?);
    }
    Ok(ids)
}

fn malformed(text: &str, why: &str) -> Error {
    let shown: String = text.chars().take(200).collect();
    Error::InvalidInput(format!("validTxnList {shown:?} is malformed: {why}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hives_string_form_parses() {
        let snapshot = TxnSnapshot::parse("12:5:5,9:7").unwrap();
        assert_eq!(snapshot.high_water_mark, 12);
        assert_eq!(snapshot.open, BTreeSet::from([5, 9]));
        assert_eq!(snapshot.aborted, BTreeSet::from([7]));
        assert!(
            snapshot.is_committed(6) && !snapshot.is_committed(7) && !snapshot.is_committed(13)
        );
        let empty = TxnSnapshot::parse("3:9223372036854775807::").unwrap();
        assert!(empty.open.is_empty() && empty.aborted.is_empty());
        assert!(TxnSnapshot::parse("x:1::").is_err());
        assert!(TxnSnapshot::parse("1:1:a:").is_err());
        assert!(TxnSnapshot::parse("1:1:::").is_err());
    }
}
