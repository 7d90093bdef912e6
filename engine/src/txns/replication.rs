//! The write id calls of table conversion and replication: `seed_write_id` (a table turned
//! transactional starts its write ids after a given one) and `repl_tbl_writeid_state` (a
//! replicated table takes over the source's write id state: its high water mark, and its
//! aborted write ids, each mapped to a transaction opened and aborted here).

use crate::error::{Error, Result};
use crate::events::{EventBody, EventKind, EventRecord};
use crate::storage::keys;
use crate::txns::locks::{now_ms, AcidChanges, AcidState};

use super::compactions::{BucketLayout, Compaction, CompactionQueue, CompactionType};
use super::state::{TableWriteId, TxnRecord};
use super::write_id_list::WriteIdSnapshot;
use super::{normalise_table, TxnState, TxnType};
use crate::store::Store;

/// Hive's `ReplTblWriteIdStateRequest`.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ReplWriteIdState {
    /// The source table's `ValidWriteIdList` string.
    pub valid_write_id_list: String,
    /// Who replicates.
    pub user: String,
    /// From where.
    pub hostname: String,
    /// The database.
    pub database: String,
    /// The table.
    pub table: String,
    /// The partitions to compact when aborted write ids came over (none: the table).
    pub partitions: Vec<String>,
}

impl Store {
    /// Hive's `seed_write_id`: the write ids of `database.table`, which has none yet (it is
    /// being converted to a transactional table), continue after `seed`.
    pub fn seed_write_id(&self, database: &str, table: &str, seed: i64) -> Result<()> {
        let (database, table) = normalise_table(database, table)?;
        let seed = u64::try_from(seed).map_err(|_| {
            Error::InvalidInput(format!(
                "seed_write_id of {database}.{table}: the seed {seed} is negative"
            ))
        })?;
        self.with_acid(now_ms(), |_, changes| {
            let counter_key = keys::write_id_counter_key(&database, &table);
            if let Some(stored) = self.reader().get(&counter_key)? {
                let next = keys::decode_id_value(&counter_key, &stored)?;
                return Err(Error::Refused(format!(
                    "seed_write_id: {database}.{table} already has write ids (the next is {next}); only a table without any can be seeded"
                )));
            }
            let next = seed.saturating_add(1);
            changes.puts.push((counter_key, next.to_be_bytes().to_vec()));
            Ok(())
        })
    }

    /// Hive's `repl_tbl_writeid_state`: `database.table`, which has no write ids yet, takes
    /// the replicated state: each aborted write id goes to a transaction opened (with an
    /// `OPEN_TXN` event, as Hive's) and aborted at once, the next write id follows the high
    /// water mark, and a major compaction is queued (per partition named) when write ids
    /// were aborted. A table that has write ids is left alone (a retry), as in Hive.
    pub fn repl_tbl_writeid_state(&self, request: ReplWriteIdState) -> Result<()> {
        let (database, table) = normalise_table(&request.database, &request.table)?;
        let snapshot = WriteIdSnapshot::parse(&request.valid_write_id_list)?;
        self.with_acid(now_ms(), |acid, changes| {
            let counter_key = keys::write_id_counter_key(&database, &table);
            if self.reader().get(&counter_key)?.is_some() {
                tracing::info!(%database, %table, "write id state already replicated");
                return Ok(());
            }
            let opened = abort_write_ids(acid, &request, (&database, &table), &snapshot, changes);
            let next = snapshot.high_water_mark.saturating_add(1);
            changes
                .puts
                .push((counter_key, next.to_be_bytes().to_vec()));
            if !opened.is_empty() {
                let body = EventBody::Txns { txn_ids: opened };
                let event = EventRecord::new(EventKind::OpenTxn, "", "", "", body);
                changes.events.push(event);
                let high_water_mark = snapshot.high_water_mark;
                self.queue_major_compactions(
                    &request,
                    (&database, &table),
                    high_water_mark,
                    changes,
                )?;
            }
            Ok(())
        })
    }

    fn queue_major_compactions(
        &self,
        request: &ReplWriteIdState,
        (database, table): (&str, &str),
        high_water_mark: u64,
        changes: &mut AcidChanges,
    ) -> Result<()> {
        let mut queue = CompactionQueue::load(self.reader())?;
        let mut partitions: Vec<Option<String>> =
            request.partitions.iter().cloned().map(Some).collect();
        if partitions.is_empty() {
            partitions.push(None);
        }
        for partition in partitions {
            let compaction = Compaction {
                id: 0,
                database: database.to_string(),
                table: table.to_string(),
                partition,
                compaction_type: CompactionType::Major,
                run_as: None,
                properties: Vec::new(),
                initiator_id: None,
                initiator_version: None,
                pool_name: None,
                enqueued_at_ms: 0,
            };
            queue.compact(
                compaction,
                BucketLayout::default(),
                high_water_mark,
                &mut changes.puts,
            )?;
        }
        queue.finish(&mut changes.puts, &mut changes.deletes);
        Ok(())
    }
}

/// Opens an aborted transaction for each aborted write id of `snapshot` on the table, and
/// maps the write id to it. Answers the transactions.
fn abort_write_ids(
    acid: &mut AcidState,
    request: &ReplWriteIdState,
    (database, table): (&str, &str),
    snapshot: &WriteIdSnapshot,
    changes: &mut AcidChanges,
) -> Vec<u64> {
    let now = now_ms();
    let mut opened = Vec::with_capacity(snapshot.aborted.len());
    for write_id in &snapshot.aborted {
        let record = TxnRecord {
            state: TxnState::Aborted,
            txn_type: TxnType::Default,
            user: request.user.clone(),
            hostname: request.hostname.clone(),
            agent_info: None,
            started_at_ms: now,
            write_ids: vec![TableWriteId {
                database: database.to_string(),
                table: table.to_string(),
                write_id: *write_id,
            }],
            writes: Vec::new(),
        };
        let txn_id = acid.txns.start(record, now);
        changes.txns_written.push(txn_id);
        let key = keys::write_id_key(database, table, *write_id);
        changes.puts.push((key, txn_id.to_be_bytes().to_vec()));
        opened.push(txn_id);
    }
    if !opened.is_empty() {
        changes.txn_counter_moved = true;
    }
    opened
}

#[cfg(test)]
mod tests {
    use super::WriteIdSnapshot;

    #[test]
    fn hives_write_id_list_parses() {
        let snapshot = WriteIdSnapshot::parse("db.t:9:3:3:5,2").unwrap();
        assert_eq!(snapshot.high_water_mark, 9);
        assert_eq!(snapshot.aborted, vec![2, 5]);
        let none = WriteIdSnapshot::parse("db.t:4:9223372036854775807::").unwrap();
        assert!(none.aborted.is_empty());
        assert!(WriteIdSnapshot::parse("db.t").is_err());
        assert!(WriteIdSnapshot::parse("db.t:x:1::").is_err());
        assert!(WriteIdSnapshot::parse("db.t:3:1::7").is_err());
    }
}
