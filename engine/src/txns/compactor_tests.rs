//! The compactor's calls on an in-memory store: a worker's whole round (find, state, job,
//! compacted, commit, cleaned), pools, failures and refusals, the history's retention, an
//! aborted worker transaction kept listed until cleaned, and the metrics cache.

use std::sync::Arc;

use super::compactions::CompactionQueue;
use super::*;
use crate::storage::kv::MemoryBackend;
use crate::{Durability, StoreOptions};

fn store_over(backend: &Arc<MemoryBackend>) -> Store {
    let mut options = StoreOptions::new("/warehouse").metadata_only();
    options.durability = Durability::Memory;
    Store::open_with_backend(backend.clone(), options).unwrap()
}

fn store() -> Store {
    store_over(&Arc::new(MemoryBackend::new()))
}

fn request(table: &str, partition: Option<&str>, pool: Option<&str>) -> Compaction {
    Compaction {
        id: 0,
        database: "db".into(),
        table: table.into(),
        partition: partition.map(Into::into),
        compaction_type: CompactionType::Major,
        run_as: None,
        properties: Vec::new(),
        initiator_id: Some("initiator".into()),
        initiator_version: None,
        pool_name: pool.map(Into::into),
        enqueued_at_ms: 0,
    }
}

fn queue(store: &Store, table: &str, partition: Option<&str>) -> u64 {
    let queued = store
        .compact(request(table, partition, None), BucketLayout::default())
        .unwrap();
    queued.id.unwrap()
}

fn worker(id: &str) -> NextCompactionRequest {
    NextCompactionRequest {
        worker_id: Some(id.into()),
        worker_version: Some("4.0.1".into()),
        pool_name: None,
    }
}

fn report(id: u64, table: &str, partition: Option<&str>, highest: i64) -> CompactionReport {
    CompactionReport {
        id: i64::try_from(id).unwrap(),
        database: "db".into(),
        table: table.into(),
        partition: partition.map(Into::into),
        compaction_type: CompactionType::Major,
        run_as: Some("hive".into()),
        properties: Vec::new(),
        worker_id: None,
        highest_write_id: highest,
        error_message: None,
        enqueued_at_ms: 0,
        pool_name: None,
        number_of_buckets: None,
        order_by: None,
    }
}

fn entry(store: &Store, id: u64) -> Option<CompactionEntry> {
    let filter = ShowCompactFilter {
        id: Some(id),
        ..ShowCompactFilter::default()
    };
    store.show_compact(&filter).unwrap().into_iter().next()
}

fn open_txn(store: &Store, txn_type: TxnType) -> u64 {
    let request = OpenTxnRequest {
        count: 1,
        user: "hive".into(),
        hostname: "h".into(),
        txn_type,
        ..OpenTxnRequest::default()
    };
    store.open_txns(request).unwrap()[0]
}

#[test]
fn a_worker_takes_compacts_commits_and_a_cleaner_marks_cleaned() {
    let store = store();
    let id = queue(&store, "t", Some("p=1"));
    let taken = store
        .find_next_compaction(&worker("host-1"))
        .unwrap()
        .unwrap();
    assert_eq!(taken.request.id, id);
    let working = entry(&store, id).unwrap();
    assert_eq!(working.state, CompactionState::Working);
    assert_eq!(working.worker_id.as_deref(), Some("host-1"));
    assert_eq!(working.worker_version.as_deref(), Some("4.0.1"));
    assert!(working.started_at_ms.is_some());
    assert_eq!(store.find_next_compaction(&worker("host-2")).unwrap(), None);
    // A working request blocks another for the same partition.
    let again = store
        .compact(request("t", Some("p=1"), None), BucketLayout::default())
        .unwrap();
    assert_eq!((again.accepted, again.state.as_str()), (false, "refused"));

    let txn = open_txn(&store, TxnType::Compaction);
    store
        .update_compactor_state(
            &report(id, "t", Some("p=1"), 5),
            i64::try_from(txn).unwrap(),
        )
        .unwrap();
    store
        .set_compaction_job_id("job_1", i64::try_from(id).unwrap())
        .unwrap();
    store.mark_compacted(i64::try_from(id).unwrap()).unwrap();
    let compacted = entry(&store, id).unwrap();
    assert_eq!(compacted.state, CompactionState::ReadyForCleaning);
    assert_eq!(
        (
            compacted.worker_id,
            compacted.highest_write_id,
            compacted.txn_id
        ),
        (None, Some(5), Some(txn))
    );
    assert_eq!(compacted.hadoop_job_id.as_deref(), Some("job_1"));
    assert_eq!(compacted.request.run_as.as_deref(), Some("hive"));
    assert_eq!(compacted.next_txn_id, None);

    let later = open_txn(&store, TxnType::Default);
    store.commit_txn(txn).unwrap();
    let committed = entry(&store, id).unwrap();
    assert_eq!(committed.next_txn_id, Some(later));
    assert!(committed.commit_time_ms.is_some());
    let latest = store
        .latest_committed_compactions("db", "t", &[], None)
        .unwrap();
    assert_eq!(latest.len(), 1);

    store
        .mark_cleaned(&report(id, "t", Some("p=1"), 5))
        .unwrap();
    let cleaned = entry(&store, id).unwrap();
    assert_eq!(cleaned.state, CompactionState::Succeeded);
    assert!(cleaned.ended_at_ms.is_some());
    let latest = store
        .latest_committed_compactions("db", "t", &[], None)
        .unwrap();
    assert_eq!(latest[0].request.id, id);
    // Completed, it neither blocks a new request nor takes further marks.
    assert!(
        store
            .compact(request("t", Some("p=1"), None), BucketLayout::default())
            .unwrap()
            .accepted
    );
    let error = store
        .mark_compacted(i64::try_from(id).unwrap())
        .unwrap_err();
    assert_eq!(
        error.to_string(),
        "The update count was 0 which is not the expected. Rolling back."
    );
    assert!(store
        .set_compaction_job_id("job_2", i64::try_from(id).unwrap())
        .is_err());
}

#[test]
fn workers_of_a_pool_take_only_its_requests() {
    let store = store();
    let pooled = store
        .compact(request("a", None, Some("etl")), BucketLayout::default())
        .unwrap()
        .id
        .unwrap();
    let plain = queue(&store, "b", None);
    let next = store.find_next_compaction(&worker("w")).unwrap().unwrap();
    assert_eq!(next.request.id, plain);
    assert_eq!(store.find_next_compaction(&worker("w")).unwrap(), None);
    let etl = NextCompactionRequest {
        pool_name: Some("etl".into()),
        ..worker("w")
    };
    assert_eq!(
        store
            .find_next_compaction(&etl)
            .unwrap()
            .unwrap()
            .request
            .id,
        pooled
    );
    // A pool's request queued longer ago than the pool timeout goes to any worker.
    let stale = store
        .compact(request("c", None, Some("etl")), BucketLayout::default())
        .unwrap()
        .id
        .unwrap();
    let mut old = entry(&store, stale).unwrap();
    old.request.enqueued_at_ms -= COMPACTOR_POOL_TIMEOUT_MS + 1_000;
    let value = crate::storage::values::encode(&old).unwrap();
    store
        .write(|txn| {
            txn.put_raw(crate::storage::keys::compaction_key(stale), value);
            Ok(())
        })
        .unwrap();
    assert_eq!(
        store
            .find_next_compaction(&worker("w"))
            .unwrap()
            .unwrap()
            .request
            .id,
        stale
    );
}

#[test]
fn a_request_working_for_longer_than_the_worker_timeout_is_initiated_again() {
    let store = store();
    let id = queue(&store, "t", None);
    store
        .find_next_compaction(&worker("dead"))
        .unwrap()
        .unwrap();
    assert_eq!(store.find_next_compaction(&worker("w")).unwrap(), None);
    let mut stalled = entry(&store, id).unwrap();
    stalled.started_at_ms = stalled
        .started_at_ms
        .map(|start| start - COMPACTOR_WORKER_TIMEOUT_MS - 1_000);
    let value = crate::storage::values::encode(&stalled).unwrap();
    store
        .write(|txn| {
            txn.put_raw(crate::storage::keys::compaction_key(id), value);
            Ok(())
        })
        .unwrap();
    let taken = store
        .find_next_compaction(&worker("alive"))
        .unwrap()
        .unwrap();
    assert_eq!(taken.request.id, id);
    assert_eq!(
        entry(&store, id).unwrap().worker_id.as_deref(),
        Some("alive")
    );
}

#[test]
fn failures_and_refusals_go_to_the_history_and_unknown_ids_are_hives_errors() {
    let store = store();
    let failing = queue(&store, "t", None);
    store.find_next_compaction(&worker("w")).unwrap();
    let mut failed = report(failing, "t", None, 0);
    failed.error_message = Some("out of memory".into());
    store.mark_compaction_failed(&failed).unwrap();
    let shown = entry(&store, failing).unwrap();
    assert_eq!(shown.state, CompactionState::Failed);
    assert_eq!(shown.error_message.as_deref(), Some("out of memory"));
    assert_eq!(shown.worker_id.as_deref(), Some("w"));
    let error = store.mark_compaction_failed(&failed).unwrap_err();
    assert_eq!(
        error.to_string(),
        format!("No record with CQ_ID={failing} found in COMPACTION_QUEUE")
    );

    let refused = queue(&store, "t", None);
    store
        .mark_compaction_refused(&report(refused, "t", None, 0))
        .unwrap();
    assert_eq!(
        entry(&store, refused).unwrap().state,
        CompactionState::Refused
    );

    // Id 0: the initiator failed before queuing; recorded under a new id.
    let mut never = report(0, "u", Some("p=1"), 0);
    never.error_message = Some("no table".into());
    store.mark_compaction_failed(&never).unwrap();
    let recorded = store.show_compact(&ShowCompactFilter::default()).unwrap();
    let last = recorded.last().unwrap();
    assert_eq!(last.request.id, refused + 1);
    assert_eq!(
        (
            last.state,
            last.request.table.as_str(),
            last.error_message.as_deref()
        ),
        (CompactionState::DidNotInitiate, "u", Some("no table"))
    );
    assert!(store.mark_compacted(0).is_err());
    assert!(store
        .update_compactor_state(&report(refused + 7, "t", None, 1), 1)
        .is_err());
}

#[test]
fn the_history_keeps_hives_counts_per_partition() {
    let store = store();
    let mut succeeded = Vec::new();
    for _ in 0..5 {
        let id = queue(&store, "t", Some("p=1"));
        store.mark_compacted(i64::try_from(id).unwrap()).unwrap();
        store
            .mark_cleaned(&report(id, "t", Some("p=1"), 0))
            .unwrap();
        succeeded.push(id);
    }
    let other = queue(&store, "t", Some("p=2"));
    store
        .mark_cleaned(&report(other, "t", Some("p=2"), 0))
        .unwrap();
    let mut failed = Vec::new();
    for _ in 0..4 {
        let id = queue(&store, "t", Some("p=1"));
        store
            .mark_compaction_failed(&report(id, "t", Some("p=1"), 0))
            .unwrap();
        failed.push(id);
    }
    let kept: Vec<u64> = store
        .show_compact(&ShowCompactFilter::default())
        .unwrap()
        .iter()
        .map(|entry| entry.request.id)
        .collect();
    let mut expected: Vec<u64> = succeeded[2..].to_vec();
    expected.push(other);
    expected.extend(&failed[1..]);
    assert_eq!(kept, expected);
    assert_eq!(HISTORY_RETAINED_SUCCEEDED, 3);
}

#[test]
fn an_aborted_worker_transaction_stays_listed_until_cleaned() {
    let backend = Arc::new(MemoryBackend::new());
    let store = store_over(&backend);
    let writer = open_txn(&store, TxnType::Default);
    store
        .allocate_table_write_ids("db", "t", &[writer])
        .unwrap();
    store.abort_txn(writer).unwrap();
    let id = queue(&store, "t", None);
    store.find_next_compaction(&worker("w")).unwrap();
    let compactor = open_txn(&store, TxnType::Compaction);
    store
        .update_compactor_state(&report(id, "t", None, 1), i64::try_from(compactor).unwrap())
        .unwrap();
    store.abort_txn(compactor).unwrap();
    store
        .mark_compaction_failed(&report(id, "t", None, 1))
        .unwrap();
    let listed = |store: &Store| -> Vec<u64> {
        store
            .purge_empty_aborted_txns_started_before(i64::MAX, 100)
            .unwrap();
        let txns = store.open_txns_info(&[]).unwrap().txns;
        txns.iter().map(|txn| txn.txn_id).collect()
    };
    assert_eq!(listed(&store), vec![writer, compactor]);
    // After a restart too.
    let store = store_over(&backend);
    assert_eq!(listed(&store), vec![writer, compactor]);
    let invalid = |store: &Store| -> Vec<u64> {
        let valid = store.valid_write_ids(&["db.t".to_string()], None).unwrap();
        valid[0].invalid_write_ids.clone()
    };
    assert_eq!(invalid(&store), vec![1]);
    // A later compaction of the table, cleaned past both write ids, lets both go.
    let next = queue(&store, "t", None);
    store.mark_compacted(i64::try_from(next).unwrap()).unwrap();
    store.mark_cleaned(&report(next, "t", None, 1)).unwrap();
    assert_eq!(listed(&store), Vec::<u64>::new());
    assert_eq!(invalid(&store), Vec::<u64>::new());
}

#[test]
fn metrics_are_kept_at_their_threshold_and_versioned() {
    let store = store();
    let metric = |partition: Option<&str>, value: i32| CompactionMetric {
        database: "DB".into(),
        table: "t".into(),
        partition: partition.map(Into::into),
        metric_type: CompactionMetricType::NumDeltas,
        value,
        threshold: 10,
    };
    let kept = |partition: Option<&str>| -> Vec<KeptMetric> {
        store
            .compaction_metrics("db", "t", partition, CompactionMetricType::NumDeltas)
            .unwrap()
            .into_iter()
            .map(|(_, kept)| kept)
            .collect()
    };
    assert!(store
        .update_compaction_metric(&metric(Some("p=1"), 3))
        .unwrap());
    assert_eq!(kept(None), vec![]);
    assert!(store
        .update_compaction_metric(&metric(Some("p=1"), 12))
        .unwrap());
    assert!(store
        .update_compaction_metric(&metric(Some("p=1"), 15))
        .unwrap());
    assert_eq!(
        kept(Some("p=1")),
        vec![KeptMetric {
            value: 15,
            version: 2
        }]
    );
    assert!(store
        .update_compaction_metric(&metric(Some("p=2"), 11))
        .unwrap());
    assert!(store
        .update_compaction_metric(&metric(Some("p=1"), 2))
        .unwrap());
    assert_eq!(kept(Some("p=1")), vec![]);
    assert_eq!(
        kept(None),
        vec![KeptMetric {
            value: 11,
            version: 1
        }]
    );
    let other_type = store
        .compaction_metrics("db", "t", None, CompactionMetricType::NumSmallDeltas)
        .unwrap();
    assert!(other_type.is_empty());
    store
        .remove_compaction_metrics("db", "t", None, CompactionMetricType::NumDeltas)
        .unwrap();
    assert_eq!(kept(None), vec![]);
    assert!(store.update_compaction_metric(&metric(None, 11)).is_ok());
    assert!(store
        .update_compaction_metric(&CompactionMetric {
            database: String::new(),
            ..metric(None, 11)
        })
        .is_err());
}

#[test]
fn the_queue_the_compactor_components_and_the_metrics_are_bounded() {
    let store = store();
    // The queue: a full queue takes no request, nor a report of id 0.
    let mut queue = CompactionQueue::load(store.reader()).unwrap();
    let template = CompactionEntry::queued(request("t", None, None), CompactionState::Succeeded);
    queue.entries = vec![template; COMPACTION_COUNT_MAX];
    let error = queue
        .compact(
            request("u", None, None),
            BucketLayout::default(),
            0,
            &mut Vec::new(),
        )
        .unwrap_err();
    assert!(
        error.to_string().contains("compaction requests are kept"),
        "{error}"
    );

    // Compactor components and metrics: filled to their limit through the backend.
    let id = queue_id_for_limits(&store);
    let component = compactor::CompactorComponent {
        database: "db".into(),
        table: "t".into(),
        partition: None,
        write_id: 1,
    };
    let encoded = crate::storage::values::encode(&component).unwrap();
    let metric = crate::storage::values::encode(&KeptMetric {
        value: 1,
        version: 1,
    })
    .unwrap();
    store
        .write(|txn| {
            for n in 0..COMPACTOR_COMPONENT_COUNT_MAX as u64 {
                let key = crate::storage::keys::compactor_component_key(1_000_000 + n, id);
                txn.put_raw(key, encoded.clone());
            }
            for n in 0..COMPACTION_METRIC_COUNT_MAX {
                let key =
                    crate::storage::keys::compaction_metric_key("db", &format!("t{n}"), 1, None);
                txn.put_raw(key, metric.clone());
            }
            Ok(())
        })
        .unwrap();
    let txn = open_txn(&store, TxnType::Compaction);
    let error = store
        .update_compactor_state(&report(id, "t", None, 1), i64::try_from(txn).unwrap())
        .unwrap_err();
    assert!(
        error
            .to_string()
            .contains("compactor transactions are recorded"),
        "{error}"
    );
    assert_eq!(entry(&store, id).unwrap().txn_id, None, "nothing changed");
    let error = store
        .update_compaction_metric(&CompactionMetric {
            database: "db".into(),
            table: "new".into(),
            partition: None,
            metric_type: CompactionMetricType::NumDeltas,
            value: 5,
            threshold: 1,
        })
        .unwrap_err();
    assert!(
        error.to_string().contains("compaction metrics are kept"),
        "{error}"
    );
}

fn queue_id_for_limits(store: &Store) -> u64 {
    let id = queue(store, "t", None);
    store.find_next_compaction(&worker("w")).unwrap();
    id
}
