//! Lock semantics on an in-memory store: conflicts wait and acquire in order, shared locks
//! coexist, timeouts release, locks survive a reopen, bad requests change nothing.

use std::sync::Arc;
use std::time::Duration;

use super::*;
use crate::storage::keys::FIRST_ID;
use crate::storage::kv::MemoryBackend;
use crate::{Durability, StoreOptions};

fn options(timeout: Duration) -> StoreOptions {
    let mut options = StoreOptions::new("/warehouse").metadata_only();
    options.durability = Durability::Memory;
    options.txn_timeout = timeout;
    options
}

fn store_over(backend: &Arc<MemoryBackend>, timeout: Duration) -> Store {
    Store::open_with_backend(backend.clone(), options(timeout)).unwrap()
}

fn store() -> Store {
    store_over(&Arc::new(MemoryBackend::new()), TXN_TIMEOUT_DEFAULT)
}

fn table_lock(lock_type: LockType, table: &str) -> LockRequest {
    LockRequest {
        components: vec![LockComponent {
            lock_type,
            level: LockLevel::Table,
            database: "DB".into(),
            table: Some(table.into()),
            partition: None,
            operation: Some(DataOperation::NoTxn),
            is_transactional: false,
            is_dynamic_partition_write: false,
        }],
        txn_id: None,
        user: "alice".into(),
        hostname: "host".into(),
        agent_info: Some("test".into()),
    }
}

#[test]
fn a_conflicting_exclusive_lock_waits_and_acquires_once_the_holder_unlocks() {
    let store = store();
    let first = store.lock(table_lock(LockType::Exclusive, "T")).unwrap();
    assert_eq!(first.state, LockState::Acquired);
    let second = store.lock(table_lock(LockType::Exclusive, "t")).unwrap();
    assert_eq!(second.state, LockState::Waiting);
    assert!(second.lock_id > first.lock_id);
    assert_eq!(
        store.check_lock(second.lock_id).unwrap().state,
        LockState::Waiting
    );
    store.unlock(first.lock_id).unwrap();
    assert_eq!(
        store.check_lock(second.lock_id).unwrap().state,
        LockState::Acquired
    );
    let other_table = store.lock(table_lock(LockType::Exclusive, "u")).unwrap();
    assert_eq!(other_table.state, LockState::Acquired);
}

#[test]
fn shared_reads_coexist_and_a_later_read_queues_behind_a_waiting_exclusive() {
    let store = store();
    let read1 = store.lock(table_lock(LockType::SharedRead, "t")).unwrap();
    let read2 = store.lock(table_lock(LockType::SharedRead, "t")).unwrap();
    assert_eq!(
        (read1.state, read2.state),
        (LockState::Acquired, LockState::Acquired)
    );
    let write = store.lock(table_lock(LockType::Exclusive, "t")).unwrap();
    assert_eq!(write.state, LockState::Waiting);
    let read3 = store.lock(table_lock(LockType::SharedRead, "t")).unwrap();
    assert_eq!(read3.state, LockState::Waiting, "arrival order is kept");
    store.unlock(read1.lock_id).unwrap();
    store.unlock(read2.lock_id).unwrap();
    assert_eq!(
        store.check_lock(read3.lock_id).unwrap().state,
        LockState::Waiting
    );
    assert_eq!(
        store.check_lock(write.lock_id).unwrap().state,
        LockState::Acquired
    );
    store.unlock(write.lock_id).unwrap();
    assert_eq!(
        store.check_lock(read3.lock_id).unwrap().state,
        LockState::Acquired
    );
}

#[test]
fn a_database_lock_blocks_its_tables_and_show_locks_reports_the_blocker() {
    let store = store();
    let mut database = table_lock(LockType::Exclusive, "t");
    database.components[0].level = LockLevel::Database;
    database.components[0].table = None;
    let held = store.lock(database).unwrap();
    let waiting = store.lock(table_lock(LockType::SharedRead, "t")).unwrap();
    assert_eq!(waiting.state, LockState::Waiting);
    let listed = store.show_locks(&ShowLocksFilter::default()).unwrap();
    assert_eq!(listed.len(), 2);
    assert_eq!(listed[0].lock_id, held.lock_id);
    assert_eq!(listed[0].table, None);
    assert_eq!(listed[1].state, LockState::Waiting);
    assert_eq!(listed[1].blocked_by, Some((held.lock_id, 1)));
    assert_eq!(listed[1].database, "db");
    let filter = ShowLocksFilter {
        table: Some("T".into()),
        ..ShowLocksFilter::default()
    };
    let on_table = store.show_locks(&filter).unwrap();
    assert_eq!(on_table.len(), 1);
    assert_eq!(on_table[0].lock_id, waiting.lock_id);
}

#[test]
fn a_lock_without_heartbeat_is_released_after_the_timeout() {
    // A timeout well above the waiter's check interval, as a loaded machine wakes late.
    let store = store_over(&Arc::new(MemoryBackend::new()), Duration::from_millis(200));
    let dead = store.lock(table_lock(LockType::Exclusive, "t")).unwrap();
    let waiting = store.lock(table_lock(LockType::Exclusive, "t")).unwrap();
    assert_eq!(waiting.state, LockState::Waiting);
    // Keep the waiter alive (check_lock heartbeats it) while the holder goes silent.
    let mut state = LockState::Waiting;
    for _ in 0..100 {
        std::thread::sleep(Duration::from_millis(20));
        state = store.check_lock(waiting.lock_id).unwrap().state;
        if state == LockState::Acquired {
            break;
        }
    }
    assert_eq!(state, LockState::Acquired);
    assert!(
        matches!(store.check_lock(dead.lock_id), Err(Error::NoSuchLock(message)) if message == format!("No such lock lockid:{}", dead.lock_id))
    );
    assert!(matches!(
        store.heartbeat_lock(dead.lock_id),
        Err(Error::NoSuchLock(_))
    ));
}

#[test]
fn locks_and_the_id_counter_survive_a_reopen() {
    let backend = Arc::new(MemoryBackend::new());
    let (held, waiting) = {
        let store = store_over(&backend, TXN_TIMEOUT_DEFAULT);
        let held = store.lock(table_lock(LockType::Exclusive, "t")).unwrap();
        let waiting = store.lock(table_lock(LockType::Exclusive, "t")).unwrap();
        (held, waiting)
    };
    let store = store_over(&backend, TXN_TIMEOUT_DEFAULT);
    let listed = store.show_locks(&ShowLocksFilter::default()).unwrap();
    let states: Vec<_> = listed
        .iter()
        .map(|lock| (lock.lock_id, lock.state))
        .collect();
    assert_eq!(
        states,
        vec![
            (held.lock_id, LockState::Acquired),
            (waiting.lock_id, LockState::Waiting)
        ]
    );
    let next = store.lock(table_lock(LockType::SharedRead, "u")).unwrap();
    assert!(next.lock_id > waiting.lock_id, "ids are never reused");
}

#[test]
fn bad_requests_are_refused_and_change_nothing() {
    let store = store();
    let mut empty = table_lock(LockType::Exclusive, "t");
    empty.components.clear();
    assert!(matches!(store.lock(empty), Err(Error::InvalidInput(_))));
    let mut no_table = table_lock(LockType::Exclusive, "t");
    no_table.components[0].table = Some(" ".into());
    assert!(
        matches!(store.lock(no_table), Err(Error::InvalidInput(message)) if message.contains("Table-level"))
    );
    let mut partition_without_name = table_lock(LockType::Exclusive, "t");
    partition_without_name.components[0].level = LockLevel::Partition;
    assert!(store.lock(partition_without_name).is_err());
    let mut no_database = table_lock(LockType::Exclusive, "t");
    no_database.components[0].database = String::new();
    assert!(store.lock(no_database).is_err());
    let mut in_txn = table_lock(LockType::Exclusive, "t");
    in_txn.txn_id = Some(42);
    assert!(
        matches!(store.lock(in_txn), Err(Error::NoSuchTxn(message)) if message == "No such transaction txnid:42")
    );
    assert!(store
        .show_locks(&ShowLocksFilter::default())
        .unwrap()
        .is_empty());
    assert_eq!(
        store
            .lock(table_lock(LockType::Exclusive, "t"))
            .unwrap()
            .lock_id,
        FIRST_ID
    );
}

#[test]
fn unlocking_a_released_lock_is_harmless_and_checking_it_is_an_error() {
    let store = store();
    let lock = store.lock(table_lock(LockType::Exclusive, "t")).unwrap();
    store.unlock(lock.lock_id).unwrap();
    store.unlock(lock.lock_id).unwrap();
    assert!(matches!(
        store.check_lock(lock.lock_id),
        Err(Error::NoSuchLock(_))
    ));
    assert!(matches!(
        store.check_lock(u64::MAX),
        Err(Error::NoSuchLock(_))
    ));
}
