//! Transactions and write ids on an in-memory store: Hive's sequence of open, lock,
//! allocate, snapshot, commit and abort; timeouts; a reopen.

use std::sync::Arc;
use std::time::Duration;

use super::*;
use crate::storage::kv::MemoryBackend;
use crate::txns::locks::{
    LockComponent, LockLevel, LockRequest, LockState, LockType, ShowLocksFilter,
};
use crate::{Durability, StoreOptions};

fn store_over(backend: &Arc<MemoryBackend>, timeout: Duration) -> Store {
    let mut options = StoreOptions::new("/warehouse").metadata_only();
    options.durability = Durability::Memory;
    options.txn_timeout = timeout;
    Store::open_with_backend(backend.clone(), options).unwrap()
}

fn store() -> Store {
    store_over(
        &Arc::new(MemoryBackend::new()),
        crate::txns::locks::TXN_TIMEOUT_DEFAULT,
    )
}

fn open(store: &Store, count: u32) -> Vec<u64> {
    store
        .open_txns(OpenTxnRequest {
            count,
            user: "u".into(),
            hostname: "h".into(),
            ..OpenTxnRequest::default()
        })
        .unwrap()
}

fn txn_lock(txn_id: u64, table: &str) -> LockRequest {
    LockRequest {
        components: vec![LockComponent {
            lock_type: LockType::SharedWrite,
            level: LockLevel::Table,
            database: "db".into(),
            table: Some(table.into()),
            partition: None,
            operation: None,
            is_transactional: true,
            is_dynamic_partition_write: false,
        }],
        txn_id: Some(txn_id),
        user: "u".into(),
        hostname: "h".into(),
        agent_info: None,
    }
}

#[test]
fn write_ids_of_open_and_aborted_transactions_are_invalid_and_committed_ones_valid() {
    let store = store();
    let txns = open(&store, 3);
    assert_eq!(txns, vec![1, 2, 3]);
    let allocated = store
        .allocate_table_write_ids("DB", "T", &[3, 1, 2])
        .unwrap();
    assert_eq!(allocated, vec![(1, 1), (2, 2), (3, 3)]);
    assert_eq!(
        store.allocate_table_write_ids("db", "t", &[2]).unwrap(),
        vec![(2, 2)]
    );
    store.commit_txn(1).unwrap();
    store.abort_txn(2).unwrap();
    let valid = store.valid_write_ids(&["db.t".into()], None).unwrap();
    assert_eq!(valid[0].high_water_mark, 3);
    assert_eq!(valid[0].invalid_write_ids, vec![2, 3]);
    assert_eq!(valid[0].aborted, vec![true, false]);
    assert_eq!(valid[0].min_open_write_id, Some(3));
    // A snapshot taken when only txn 1 existed sees nothing past write id 1.
    let old = store
        .valid_write_ids(&["db.t".into()], Some("1:9223372036854775807::"))
        .unwrap();
    assert_eq!(
        (old[0].high_water_mark, old[0].invalid_write_ids.clone()),
        (1, vec![])
    );
    assert_eq!(store.max_allocated_table_write_id("db", "t").unwrap(), 3);
    assert_eq!(
        store.max_allocated_table_write_id("db", "other").unwrap(),
        0
    );
    let listed = store.open_txns_info(&[]).unwrap();
    assert_eq!(listed.high_water_mark, 3);
    let states: Vec<_> = listed
        .txns
        .iter()
        .map(|txn| (txn.txn_id, txn.state))
        .collect();
    assert_eq!(states, vec![(2, TxnState::Aborted), (3, TxnState::Open)]);
}

#[test]
fn closed_transactions_answer_hives_errors() {
    let store = store();
    let txns = open(&store, 2);
    store.commit_txn(txns[0]).unwrap();
    store.abort_txn(txns[1]).unwrap();
    store.abort_txn(txns[1]).unwrap();
    assert_eq!(
        store.commit_txn(txns[1]),
        Err(Error::TxnAborted(
            "Transaction txnid:2 already aborted".into()
        ))
    );
    store.commit_txn(txns[0]).unwrap();
    assert_eq!(
        store.abort_txn(txns[0]),
        Err(Error::NoSuchTxn(
            "Transaction txnid:1 is already committed.".into()
        ))
    );
    assert_eq!(
        store.abort_txn(77),
        Err(Error::NoSuchTxn("No such transaction txnid:77".into()))
    );
    assert!(matches!(
        store.heartbeat_txn(txns[1]),
        Err(Error::TxnAborted(_))
    ));
    assert!(matches!(
        store.allocate_table_write_ids("db", "t", &[txns[1]]),
        Err(Error::TxnAborted(_))
    ));
    assert!(matches!(
        store.lock(txn_lock(txns[0], "t")),
        Err(Error::NoSuchTxn(_))
    ));
    let (aborted, missing) = store.heartbeat_txn_range(1, 3).unwrap();
    assert_eq!((aborted, missing), (vec![2], vec![1, 3]));
    assert!(store.valid_write_ids(&["no_dot".into()], None).is_err());
    assert!(store
        .valid_write_ids(&["db.t".into()], Some("garbage"))
        .is_err());
}

#[test]
fn commit_and_abort_release_the_transactions_locks_which_unlock_may_not() {
    let store = store();
    let txns = open(&store, 2);
    let first = store.lock(txn_lock(txns[0], "t")).unwrap();
    assert_eq!(first.state, LockState::Acquired);
    assert!(matches!(
        store.unlock(first.lock_id),
        Err(Error::TxnOpen(_))
    ));
    let mut exclusive = txn_lock(txns[1], "t");
    exclusive.components[0].lock_type = LockType::Exclusive;
    let second = store.lock(exclusive).unwrap();
    assert_eq!(second.state, LockState::Waiting);
    store.commit_txn(txns[0]).unwrap();
    assert_eq!(
        store.check_lock(second.lock_id).unwrap().state,
        LockState::Acquired
    );
    store.abort_txn(txns[1]).unwrap();
    assert!(store
        .show_locks(&ShowLocksFilter::default())
        .unwrap()
        .is_empty());
}

#[test]
fn a_transaction_without_heartbeat_is_aborted_with_its_locks() {
    // Heartbeats far more often than the timeout, so that a loaded machine's late wake-ups
    // do not expire the transaction kept alive.
    let store = store_over(&Arc::new(MemoryBackend::new()), Duration::from_millis(200));
    let txns = open(&store, 2);
    store.lock(txn_lock(txns[0], "t")).unwrap();
    for _ in 0..25 {
        std::thread::sleep(Duration::from_millis(20));
        store.heartbeat_txn(txns[1]).unwrap();
    }
    assert!(matches!(
        store.commit_txn(txns[0]),
        Err(Error::TxnAborted(_))
    ));
    assert!(store
        .show_locks(&ShowLocksFilter::default())
        .unwrap()
        .is_empty());
    store.commit_txn(txns[1]).unwrap();
}

#[test]
fn transactions_write_ids_and_counters_survive_a_reopen() {
    let backend = Arc::new(MemoryBackend::new());
    {
        let store = store_over(&backend, crate::txns::locks::TXN_TIMEOUT_DEFAULT);
        let txns = open(&store, 2);
        store.allocate_table_write_ids("db", "t", &txns).unwrap();
        store.commit_txn(txns[0]).unwrap();
    }
    let store = store_over(&backend, crate::txns::locks::TXN_TIMEOUT_DEFAULT);
    let listed = store.open_txns_info(&[]).unwrap();
    assert_eq!(listed.high_water_mark, 2);
    assert_eq!(listed.txns.len(), 1);
    assert_eq!(
        store.allocate_table_write_ids("db", "t", &[2]).unwrap(),
        vec![(2, 2)]
    );
    assert_eq!(open(&store, 1), vec![3]);
    store.commit_txn(2).unwrap();
    assert!(store.valid_write_ids(&["db.t".into()], None).unwrap()[0]
        .invalid_write_ids
        .is_empty());
}

#[test]
fn bad_requests_open_nothing() {
    let store = store();
    let zero = OpenTxnRequest::default();
    assert!(matches!(store.open_txns(zero), Err(Error::InvalidInput(_))));
    assert!(store.allocate_table_write_ids("db", "t", &[]).is_err());
    assert!(store.allocate_table_write_ids("", "t", &[1]).is_err());
    assert_eq!(store.open_txns_info(&[]).unwrap(), OpenTxns::default());
}

#[test]
fn open_txns_opens_at_most_a_batch_as_hive_does() {
    let store = store();
    let too_many = OpenTxnRequest {
        count: OPEN_TXN_BATCH_MAX * 10,
        ..OpenTxnRequest::default()
    };
    let opened = store.open_txns(too_many).unwrap();
    assert_eq!(opened.len(), OPEN_TXN_BATCH_MAX as usize);
    assert!(opened.windows(2).all(|pair| pair[1] == pair[0] + 1));
    let info = store.open_txns_info(&[]).unwrap();
    assert_eq!(info.txns.len(), OPEN_TXN_BATCH_MAX as usize);
}

fn write_lock(
    txn_id: u64,
    operation: crate::txns::locks::DataOperation,
    partition: &str,
) -> LockRequest {
    let mut request = txn_lock(txn_id, "t");
    request.components[0].level = LockLevel::Partition;
    request.components[0].partition = Some(partition.into());
    request.components[0].operation = Some(operation);
    request
}

#[test]
fn overlapping_updates_of_one_partition_abort_the_second_committer_as_hive_does() {
    use crate::txns::locks::DataOperation::{Delete, Insert, Update};
    let store = store();
    let txns = open(&store, 2);
    store.lock(write_lock(txns[0], Update, "p=1")).unwrap();
    store.lock(write_lock(txns[1], Update, "p=1")).unwrap();
    store.commit_txn(txns[0]).unwrap();
    assert_eq!(
        store.commit_txn(txns[1]),
        Err(Error::TxnAborted(
            "Aborting [txnid:2,2] due to a write conflict on db/t/p=1 committed by [txnid:1,2] u/u"
                .into()
        ))
    );
    assert!(store
        .show_locks(&ShowLocksFilter::default())
        .unwrap()
        .is_empty());
    assert!(matches!(
        store.commit_txn(txns[1]),
        Err(Error::TxnAborted(_))
    ));

    // Two deletes, inserts, other partitions and later transactions do not conflict.
    let txns = open(&store, 4);
    store.lock(write_lock(txns[0], Delete, "p=1")).unwrap();
    store.lock(write_lock(txns[1], Delete, "p=1")).unwrap();
    store.lock(write_lock(txns[2], Update, "p=2")).unwrap();
    store.lock(write_lock(txns[3], Insert, "p=1")).unwrap();
    for txn_id in &txns {
        store.commit_txn(*txn_id).unwrap();
    }
    let later = open(&store, 1);
    store.lock(write_lock(later[0], Update, "p=1")).unwrap();
    store.commit_txn(later[0]).unwrap();
}

#[test]
fn dynamic_partitions_join_the_write_set_and_conflict_on_commit() {
    use crate::txns::locks::DataOperation::Update;
    let store = store();
    let txns = open(&store, 2);
    for txn_id in &txns {
        let mut request = write_lock(*txn_id, Update, "ignored");
        request.components[0].level = LockLevel::Table;
        request.components[0].partition = None;
        request.components[0].is_dynamic_partition_write = true;
        store.lock(request).unwrap();
        store
            .add_dynamic_partitions(*txn_id, "DB", "T", &["p=7".into()], Update)
            .unwrap();
    }
    store.commit_txn(txns[0]).unwrap();
    assert!(
        matches!(store.commit_txn(txns[1]), Err(Error::TxnAborted(message)) if message.contains("db/t/p=7"))
    );
    assert!(matches!(
        store.add_dynamic_partitions(txns[1], "db", "t", &[], Update),
        Err(Error::TxnAborted(_))
    ));
}

#[test]
fn a_seed_moves_the_next_transaction_id_forward_only() {
    let store = store();
    open(&store, 2);
    assert_eq!(
        store.seed_txn_id(2),
        Err(Error::Refused(
            "Invalid txnId seed 2, the highWaterMark is 2".into()
        ))
    );
    store.seed_txn_id(100).unwrap();
    assert_eq!(open(&store, 1), vec![100]);
}

#[test]
fn aborted_transactions_do_not_count_toward_the_open_limit() {
    let store = store();
    let batch = crate::txns::OPEN_TXN_BATCH_MAX;
    let rounds = crate::txns::OPEN_TXN_COUNT_MAX / batch as usize;
    for _ in 0..rounds {
        let txns = open(&store, batch);
        store.abort_txns(&txns).unwrap();
    }
    // As many aborted as may be open: opening more is still allowed, as in Hive.
    let more = open(&store, batch);
    assert_eq!(more.len(), batch as usize);
}

#[test]
fn the_latest_conflicting_commit_is_named_for_an_open_update() {
    use crate::txns::locks::DataOperation::{Insert, Update};
    let store = store();
    let txns = open(&store, 4);
    assert_eq!(store.latest_txn_id_in_conflict(txns[1]).unwrap(), 0);
    store.lock(write_lock(txns[0], Update, "p=1")).unwrap();
    store.lock(write_lock(txns[1], Update, "p=1")).unwrap();
    store.lock(write_lock(txns[2], Update, "p=2")).unwrap();
    store.lock(write_lock(txns[3], Insert, "p=1")).unwrap();
    store.commit_txn(txns[0]).unwrap();
    assert_eq!(store.latest_txn_id_in_conflict(txns[1]).unwrap(), txns[0]);
    assert_eq!(store.latest_txn_id_in_conflict(txns[2]).unwrap(), 0);
    assert_eq!(
        store.latest_txn_id_in_conflict(txns[3]).unwrap(),
        0,
        "inserts never conflict"
    );
    assert_eq!(
        store.latest_txn_id_in_conflict(txns[0]).unwrap(),
        0,
        "committed"
    );
    assert_eq!(store.latest_txn_id_in_conflict(999).unwrap(), 0, "unknown");
}

#[test]
fn seeded_write_ids_follow_the_seed_and_a_second_seed_changes_nothing() {
    let store = store();
    store.seed_write_id("DB", "T", 41).unwrap();
    assert_eq!(store.max_allocated_table_write_id("db", "t").unwrap(), 41);
    let valid = &store.valid_write_ids(&["db.t".into()], None).unwrap()[0];
    assert_eq!(
        (valid.high_water_mark, valid.invalid_write_ids.len()),
        (41, 0)
    );
    let txns = open(&store, 1);
    assert_eq!(
        store.allocate_table_write_ids("db", "t", &txns).unwrap(),
        vec![(txns[0], 42)]
    );
    assert!(matches!(
        store.seed_write_id("db", "t", 7),
        Err(Error::Refused(message)) if message.contains("db.t already has write ids")
    ));
    assert!(matches!(
        store.seed_write_id("db", "u", -1),
        Err(Error::InvalidInput(_))
    ));
    assert_eq!(store.max_allocated_table_write_id("db", "t").unwrap(), 42);
    assert_eq!(store.max_allocated_table_write_id("db", "u").unwrap(), 0);
}

fn repl_state(list: &str) -> ReplWriteIdState {
    ReplWriteIdState {
        valid_write_id_list: list.to_string(),
        user: "repl".into(),
        hostname: "h".into(),
        database: "db".into(),
        table: "r".into(),
        partitions: vec!["p=1".into()],
    }
}

#[test]
fn replicated_write_id_state_aborts_its_aborted_write_ids_once() {
    let store = store();
    let before = store.current_event_id().unwrap();
    assert!(store
        .repl_tbl_writeid_state(repl_state("db.r:x:1::"))
        .is_err());
    assert_eq!(
        store.current_event_id().unwrap(),
        before,
        "a bad list changes nothing"
    );
    store
        .repl_tbl_writeid_state(repl_state("db.r:6:3:3:5,2"))
        .unwrap();
    let valid = &store.valid_write_ids(&["db.r".into()], None).unwrap()[0];
    assert_eq!(valid.high_water_mark, 6);
    assert_eq!(valid.invalid_write_ids, vec![2, 5]);
    assert_eq!(valid.aborted, vec![true, true]);
    let listed = store.open_txns_info(&[]).unwrap();
    assert_eq!(listed.txns.len(), 2);
    assert!(listed.txns.iter().all(|txn| txn.state == TxnState::Aborted));
    let queued = store.show_compact(&ShowCompactFilter::default()).unwrap();
    assert_eq!(queued.len(), 1);
    assert_eq!(queued[0].request.partition.as_deref(), Some("p=1"));
    let events = store
        .next_events(before, 10, &crate::events::EventFilter::default())
        .unwrap();
    let logged: Vec<&str> = events.iter().map(|e| e.record.kind.hive_name()).collect();
    assert_eq!(logged, vec!["OPEN_TXN"]);

    // A retry is a no-op.
    store
        .repl_tbl_writeid_state(repl_state("db.r:9:3::1"))
        .unwrap();
    assert_eq!(store.max_allocated_table_write_id("db", "r").unwrap(), 6);
    assert_eq!(store.open_txns_info(&[]).unwrap().txns.len(), 2);
    let txns = open(&store, 1);
    assert_eq!(
        store.allocate_table_write_ids("db", "r", &txns).unwrap(),
        vec![(txns[0], 7)]
    );
}

#[test]
fn min_history_lives_while_its_transaction_is_open() {
    let backend = Arc::new(MemoryBackend::new());
    let store = store_over(&backend, crate::txns::locks::TXN_TIMEOUT_DEFAULT);
    let txns = open(&store, 2);
    let write_ids = vec![("DB.T".to_string(), 3), ("db.u".to_string(), 1)];
    store
        .add_write_ids_to_min_history(txns[0], &write_ids)
        .unwrap();
    assert!(store
        .add_write_ids_to_min_history(txns[0], &[("nodot".to_string(), 1)])
        .is_err());
    assert!(store
        .add_write_ids_to_min_history(txns[0], &[("db.t".to_string(), 0)])
        .is_err());
    assert!(matches!(
        store.add_write_ids_to_min_history(99, &write_ids),
        Err(Error::Refused(_))
    ));
    drop(store);
    let store = store_over(&backend, crate::txns::locks::TXN_TIMEOUT_DEFAULT);
    let expected = vec![("db".into(), "t".into(), 3), ("db".into(), "u".into(), 1)];
    assert_eq!(store.min_history_write_ids(txns[0]).unwrap(), expected);
    store
        .add_write_ids_to_min_history(txns[1], &write_ids)
        .unwrap();
    store.commit_txn(txns[0]).unwrap();
    store.abort_txn(txns[1]).unwrap();
    assert!(store.min_history_write_ids(txns[0]).unwrap().is_empty());
    drop(store);
    let store = store_over(&backend, crate::txns::locks::TXN_TIMEOUT_DEFAULT);
    assert!(store.min_history_write_ids(txns[1]).unwrap().is_empty());
    let range = KeyRange::prefix(&[keys::KEYSPACE_MIN_HISTORY]);
    assert_eq!(
        store.scan(range).count(),
        0,
        "commit and abort deleted the entries"
    );
}

#[test]
fn aborted_transactions_without_writes_are_purged_after_the_window() {
    let store = store();
    let txns = open(&store, 3);
    store
        .allocate_table_write_ids("db", "t", &txns[1..2])
        .unwrap();
    store.abort_txns(&txns).unwrap();
    assert_eq!(
        store.purge_empty_aborted_txns(10).unwrap(),
        0,
        "inside the window"
    );
    let later = now_ms() + OPEN_TXN_WINDOW_MS + 1;
    assert_eq!(
        store
            .purge_empty_aborted_txns_started_before(later, 1)
            .unwrap(),
        1
    );
    assert_eq!(
        store
            .purge_empty_aborted_txns_started_before(later, 10)
            .unwrap(),
        1
    );
    let listed: Vec<u64> = store
        .open_txns_info(&[])
        .unwrap()
        .txns
        .iter()
        .map(|txn| txn.txn_id)
        .collect();
    assert_eq!(listed, vec![txns[1]], "the one with a write id stays");
    let valid = &store.valid_write_ids(&["db.t".into()], None).unwrap()[0];
    assert_eq!(valid.invalid_write_ids, vec![1]);
}

fn open_replayed(store: &Store, policy: &str, sources: &[u64]) -> Result<Vec<u64>> {
    let request = OpenTxnRequest {
        count: u32::try_from(sources.len()).unwrap(),
        user: "repl".into(),
        hostname: "h".into(),
        txn_type: TxnType::ReplCreated,
        ..OpenTxnRequest::default()
    };
    store.open_txns_for(request, Some((policy.to_string(), sources.to_vec())))
}

#[test]
fn replayed_transactions_are_mapped_until_they_end() {
    let backend = Arc::new(MemoryBackend::new());
    let store = store_over(&backend, crate::txns::locks::TXN_TIMEOUT_DEFAULT);
    let targets = open_replayed(&store, "db.*", &[70, 71]).unwrap();
    assert_eq!(open_replayed(&store, "db.*", &[70, 71]).unwrap(), targets);
    let other = open_replayed(&store, "other.*", &[70]).unwrap();
    assert!(!targets.contains(&other[0]));
    let replayed = ReplRole::Replayed {
        policy: "db.*".into(),
    };
    let allocated = store
        .allocate_replayed_write_ids("db", "t", "db.*", &[(70, 4), (71, 5)])
        .unwrap();
    assert_eq!(allocated, vec![(targets[0], 4), (targets[1], 5)]);
    assert_eq!(store.max_allocated_table_write_id("db", "t").unwrap(), 5);
    assert!(store
        .allocate_replayed_write_ids("db", "t", "db.*", &[(99, 6)])
        .unwrap()
        .is_empty());

    // Survives a reopen.
    drop(store);
    let store = store_over(&backend, crate::txns::locks::TXN_TIMEOUT_DEFAULT);
    assert_eq!(open_replayed(&store, "db.*", &[70, 71]).unwrap(), targets);
    store
        .commit_txn_as(70, CommitExtras::default(), &replayed)
        .unwrap();
    store.abort_txn_as(71, &replayed).unwrap();
    // Retries are no-ops; the ids open new transactions now.
    store
        .commit_txn_as(70, CommitExtras::default(), &replayed)
        .unwrap();
    store.abort_txn_as(71, &replayed).unwrap();
    let info = store.open_txns_info(&[]).unwrap();
    assert!(info.txns.iter().all(|txn| txn.txn_id != targets[0]));
    assert!(info
        .txns
        .iter()
        .any(|txn| txn.txn_id == targets[1] && txn.state == TxnState::Aborted));
    let again = open_replayed(&store, "db.*", &[70]).unwrap();
    assert!(again[0] > other[0]);
}

#[test]
fn replayed_opens_need_a_policy_and_one_source_a_transaction() {
    let store = store();
    let request = OpenTxnRequest {
        count: 2,
        txn_type: TxnType::ReplCreated,
        ..OpenTxnRequest::default()
    };
    assert!(store.open_txns_for(request.clone(), None).is_err());
    let error = store
        .open_txns_for(request, Some(("p".into(), vec![1])))
        .unwrap_err();
    assert!(error.to_string().contains("names 1 source"), "{error}");
    assert!(open_replayed(&store, &"p".repeat(257), &[1]).is_err());
    assert!(store.open_txns_info(&[]).unwrap().txns.is_empty());
}
