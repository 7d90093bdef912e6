//! Replayed transactions, as Hive 4's `TxnHandler` keeps them in `REPL_TXN_MAP`: a
//! replication load opens a `REPL_CREATED` transaction here for each transaction of the
//! source metastore, under its replication policy, and commits, aborts and allocates write
//! ids for it by the source's id. The map entry goes when the transaction ends.

use super::{
    check_id_list_len, normalise_table, require_open, AcidChanges, OpenTxnRequest, TableWriteId,
    TxnSpace, TxnType,
};
use crate::error::{Error, Result};
use crate::events::{EventBody, EventKind, EventRecord};
use crate::storage::keys;
use crate::store::Store;
use crate::txns::locks::now_ms;

/// Hive's `metastore.repl.txn.timeout`: a replayed transaction not heartbeated for 11 days
/// is aborted (others after `metastore.txn.timeout`).
pub const REPL_TXN_TIMEOUT_MS: i64 = 11 * 24 * 3600 * 1000;
/// `REPL_TXN_MAP.RTM_REPL_POLICY varchar(256)`.
pub const REPL_POLICY_LEN_MAX: usize = 256;

/// Who a transaction call comes from, as Hive tells them apart by `replPolicy` and the
/// transaction type.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ReplRole {
    /// Not replication.
    None,
    /// Replication on its source metastore (`replPolicy` with type `DEFAULT`): no event is
    /// logged for it.
    Source,
    /// A replication load replaying a source transaction (type `REPL_CREATED`), by the
    /// source's id under `policy`.
    Replayed {
        /// The replication policy.
        policy: String,
    },
}

fn check_policy(policy: &str) -> Result<()> {
    if policy.len() > REPL_POLICY_LEN_MAX {
        return Err(Error::Refused(format!(
            "A replication policy of {} bytes is longer than the {REPL_POLICY_LEN_MAX} bytes allowed",
            policy.len()
        )));
    }
    Ok(())
}

/// The policy and source ids of an `open_txns` that replays transactions; `None` for one
/// that does not. A `REPL_CREATED` request needs a policy and one source id a transaction.
pub(super) fn check_open(
    request: &OpenTxnRequest,
    repl: Option<&(String, Vec<u64>)>,
) -> Result<Option<(String, Vec<u64>)>> {
    if request.txn_type != TxnType::ReplCreated {
        return Ok(None);
    }
    let Some((policy, sources)) = repl else {
        return Err(Error::InvalidInput(
            "open_txns of REPL_CREATED transactions needs replPolicy and replSrcTxnIds".to_string(),
        ));
    };
    check_policy(policy)?;
    let count = usize::try_from(request.count.min(super::OPEN_TXN_BATCH_MAX)).unwrap_or(0);
    if sources.len() != count {
        return Err(Error::InvalidInput(format!(
            "open_txns of {count} REPL_CREATED transactions names {} source transactions",
            sources.len()
        )));
    }
    Ok(Some((policy.clone(), sources.clone())))
}

/// The transactions `sources` of `policy` are mapped to, in the order of `sources`.
pub(super) fn mapped_targets(txns: &TxnSpace, policy: &str, sources: &[u64]) -> Vec<u64> {
    sources
        .iter()
        .filter_map(|source| txns.repl_map.get(&(policy.to_string(), *source)).copied())
        .collect()
}

/// Maps each of `sources` to the transaction opened for it.
pub(super) fn map(
    txns: &mut TxnSpace,
    policy: &str,
    sources: &[u64],
    targets: &[u64],
    changes: &mut AcidChanges,
) {
    for (source, target) in sources.iter().zip(targets) {
        txns.repl_map.insert((policy.to_string(), *source), *target);
        changes.puts.push((
            keys::repl_txn_map_key(policy, *source),
            target.to_be_bytes().to_vec(),
        ));
    }
}

/// Forgets every mapping to `target`, which ended.
pub(crate) fn forget_target(txns: &mut TxnSpace, target: u64, changes: &mut AcidChanges) {
    if txns.repl_map.is_empty() {
        return;
    }
    let gone: Vec<(String, u64)> = txns
        .repl_map
        .iter()
        .filter(|(_, mapped)| **mapped == target)
        .map(|(key, _)| key.clone())
        .collect();
    for (policy, source) in gone {
        changes
            .deletes
            .push(keys::repl_txn_map_key(&policy, source));
        txns.repl_map.remove(&(policy, source));
    }
}

impl Store {
    /// Hive's `allocate_table_write_ids` with `replPolicy`: the source transactions of
    /// `sources` (source id, write id) are resolved through the policy's map; when one is
    /// not mapped (a retry after they ended) nothing is allocated and the answer is empty.
    /// Otherwise the transactions get the source's write ids, from the first one given on:
    /// the table's next write id moves past them, and when it was not the first one given,
    /// the table's earlier write id mappings are dropped, as Hive does after a bootstrap.
    /// Transactions that have write ids on the table already keep them.
    pub fn allocate_replayed_write_ids(
        &self,
        database: &str,
        table: &str,
        policy: &str,
        sources: &[(u64, u64)],
    ) -> Result<Vec<(u64, u64)>> {
        let (database, table) = normalise_table(database, table)?;
        check_policy(policy)?;
        check_id_list_len(sources.len(), "allocate_table_write_ids")?;
        let Some((_, first_write_id)) = sources.first().copied() else {
            return Err(Error::Refused(
                "allocate_table_write_ids with replPolicy needs a non-empty srcTxnToWriteIdList"
                    .to_string(),
            ));
        };
        self.with_acid(now_ms(), |acid, changes| {
            let mut targets = Vec::with_capacity(sources.len());
            for (source, _) in sources {
                match acid.txns.repl_map.get(&(policy.to_string(), *source)) {
                    Some(target) => targets.push(*target),
                    None => {
                        tracing::info!(
                            policy,
                            source,
                            "write ids for a source transaction not mapped"
                        );
                        return Ok(Vec::new());
                    }
                }
            }
            targets.sort_unstable();
            for target in &targets {
                require_open(&acid.txns, *target)
                    .map_err(|error| super::allocation_error(error, &database, &table, *target))?;
            }
            let held: Vec<(u64, u64)> = targets
                .iter()
                .filter_map(|target| {
                    let txn = acid.txns.txns.get(target)?;
                    txn.record
                        .write_ids
                        .iter()
                        .find(|held| held.database == database && held.table == table)
                        .map(|held| (*target, held.write_id))
                })
                .collect();
            if held.len() == targets.len() {
                return Ok(held);
            }
            let counter_key = keys::write_id_counter_key(&database, &table);
            let stored_next = match self.reader().get(&counter_key)? {
                Some(stored) => Some(keys::decode_id_value(&counter_key, &stored)?),
                None => None,
            };
            let first = if first_write_id > 0 {
                first_write_id
            } else {
                stored_next.unwrap_or(keys::FIRST_ID)
            };
            if first_write_id > 0 && stored_next.is_some_and(|next| next != first_write_id) {
                self.drop_table_write_ids(&mut acid.txns, &database, &table, changes)?;
            }
            let mut allocated = Vec::with_capacity(targets.len());
            for (offset, target) in targets.iter().enumerate() {
                let write_id = first + offset as u64;
                if let Some(txn) = acid.txns.txns.get_mut(target) {
                    txn.record
                        .write_ids
                        .retain(|held| !(held.database == database && held.table == table));
                    txn.record.write_ids.push(TableWriteId {
                        database: database.clone(),
                        table: table.clone(),
                        write_id,
                    });
                }
                changes.txns_written.push(*target);
                changes.puts.push((
                    keys::write_id_key(&database, &table, write_id),
                    target.to_be_bytes().to_vec(),
                ));
                allocated.push((*target, write_id));
            }
            // A mapping dropped above and written again stays.
            let written: std::collections::BTreeSet<&Vec<u8>> =
                changes.puts.iter().map(|(key, _)| key).collect();
            let deletes = std::mem::take(&mut changes.deletes);
            changes.deletes = deletes
                .into_iter()
                .filter(|key| !written.contains(key))
                .collect();
            let next = first + targets.len() as u64;
            changes
                .puts
                .push((counter_key, next.to_be_bytes().to_vec()));
            let body = EventBody::WriteIds {
                allocated: allocated.clone(),
            };
            let catalog = crate::model::names::DEFAULT_CATALOG_NAME;
            changes.events.push(EventRecord::new(
                EventKind::AllocWriteId,
                catalog,
                &database,
                &table,
                body,
            ));
            Ok(allocated)
        })
    }

    /// Drops every write id mapping of `database.table` (Hive's `TXN_TO_WRITE_ID` rows of the
    /// table), from the store and from the transactions that hold them.
    fn drop_table_write_ids(
        &self,
        txns: &mut TxnSpace,
        database: &str,
        table: &str,
        changes: &mut AcidChanges,
    ) -> Result<()> {
        let range = crate::storage::kv::KeyRange::prefix(&keys::write_id_prefix(database, table));
        for entry in self.scan(range) {
            let (key, _) = entry?;
            changes.deletes.push(key.to_vec());
        }
        for (txn_id, txn) in txns.txns.iter_mut() {
            let before = txn.record.write_ids.len();
            txn.record
                .write_ids
                .retain(|held| !(held.database == database && held.table == table));
            if txn.record.write_ids.len() != before {
                changes.txns_written.push(*txn_id);
            }
        }
        Ok(())
    }
}
