//! Partition listings see whole batches, deterministically: a backend that pauses a listing
//! between two pages of its scan while another thread's batch adds or drops partitions on
//! both sides of the pause. A listing that stitched its pages together would show half the
//! batch (the partition after the pause, not the one before it); every listing must show
//! the batch whole.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::{channel, Receiver, Sender};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use hivestore_engine::keys::KEYSPACE_PARTITION;
use hivestore_engine::kv::{KeyRange, KvBackend, KvBytes, MemoryBackend, WriteBatch};
use hivestore_engine::{
    AddPartitionsOptions, Database, DropPartitionsOptions, Durability, FieldSchema, Partition,
    Result, StorageDescriptor, Store, StoreOptions, Table,
};

/// More partitions than one page of a scan (1,024), so a listing of them reads two pages.
const PARTITION_COUNT: usize = 3_000;
/// How long the paused scan waits for the other thread's batch: a bound, never reached
/// unless the test is broken.
const PAUSE_TIMEOUT: Duration = Duration::from_secs(30);

/// The pause: after the `scans_left`-th page read from the partition keyspace, the scanning
/// thread tells the writer to go and waits until its batch is applied.
struct Pause {
    scans_left: usize,
    go: Sender<()>,
    done: Receiver<()>,
}

/// A memory backend whose partition scans can be paused once.
struct PausingBackend {
    inner: MemoryBackend,
    pause: Mutex<Option<Pause>>,
    pauses_taken: AtomicUsize,
}

impl PausingBackend {
    fn scans_partitions(range: &KeyRange) -> bool {
        match &range.start {
            std::ops::Bound::Included(key) | std::ops::Bound::Excluded(key) => {
                key.first() == Some(&KEYSPACE_PARTITION)
            }
            std::ops::Bound::Unbounded => false,
        }
    }

    /// Runs the armed pause if this scan is the one it waits for.
    fn maybe_pause(&self, range: &KeyRange) {
        if !Self::scans_partitions(range) {
            return;
        }
        let mut armed = self.pause.lock().unwrap();
        let fire = match armed.as_mut() {
            Some(pause) if pause.scans_left <= 1 => true,
            Some(pause) => {
                pause.scans_left -= 1;
                false
            }
            None => false,
        };
        if fire {
            let pause = armed.take().unwrap();
            drop(armed);
            pause.go.send(()).unwrap();
            pause
                .done
                .recv_timeout(PAUSE_TIMEOUT)
                .expect("the writer's batch within the bound");
            self.pauses_taken.fetch_add(1, Ordering::SeqCst);
        }
    }
}

impl KvBackend for PausingBackend {
    fn get(&self, key: &[u8]) -> Result<Option<KvBytes>> {
        self.inner.get(key)
    }

    fn scan(&self, range: &KeyRange, entry_count_max: usize) -> Result<Vec<(KvBytes, KvBytes)>> {
        let page = self.inner.scan(range, entry_count_max)?;
        self.maybe_pause(range);
        Ok(page)
    }

    fn apply(&self, batch: WriteBatch) -> Result<()> {
        self.inner.apply(batch)
    }

    fn flush(&self) -> Result<()> {
        self.inner.flush()
    }
}

fn column(name: &str) -> FieldSchema {
    FieldSchema {
        name: name.to_string(),
        type_name: "string".to_string(),
        comment: None,
    }
}

fn partition(value: &str) -> Partition {
    Partition {
        values: vec![value.to_string()],
        ..Partition::default()
    }
}

/// A store with `db.events` partitioned by `p`, holding `p0000` to `p2999`.
fn populated() -> (Arc<Store>, Arc<PausingBackend>) {
    let backend = Arc::new(PausingBackend {
        inner: MemoryBackend::new(),
        pause: Mutex::new(None),
        pauses_taken: AtomicUsize::new(0),
    });
    let mut options = StoreOptions::new("s3a://bucket/warehouse").metadata_only();
    options.durability = Durability::Memory;
    let store = Arc::new(Store::open_with_backend(backend.clone(), options).unwrap());
    store
        .create_database(Database {
            name: "db".to_string(),
            ..Database::default()
        })
        .unwrap();
    store
        .create_table(Table {
            db_name: "db".to_string(),
            table_name: "events".to_string(),
            sd: Some(StorageDescriptor {
                cols: vec![column("payload")],
                ..StorageDescriptor::default()
            }),
            partition_keys: vec![column("p")],
            ..Table::default()
        })
        .unwrap();
    let partitions = (0..PARTITION_COUNT)
        .map(|index| partition(&format!("p{index:04}")))
        .collect();
    let options = AddPartitionsOptions::default();
    store
        .add_partitions("hive", "db", "events", partitions, &options)
        .unwrap();
    (store, backend)
}

/// The change the writer makes during the pause, on both sides of it: `a` sorts before
/// every stored partition (in the page already read), `z` after (in the page to come).
#[derive(Clone, Copy, Debug)]
enum Change {
    AddBothEnds,
    DropBothEnds,
}

impl Change {
    fn prepare(self, store: &Store) {
        if let Change::DropBothEnds = self {
            let options = AddPartitionsOptions::default();
            let both = vec![partition("a"), partition("z")];
            store
                .add_partitions("hive", "db", "events", both, &options)
                .unwrap();
        }
    }

    fn apply(self, store: &Store) {
        match self {
            Change::AddBothEnds => {
                let options = AddPartitionsOptions::default();
                let both = vec![partition("a"), partition("z")];
                store
                    .add_partitions("hive", "db", "events", both, &options)
                    .unwrap();
            }
            Change::DropBothEnds => {
                let both = [vec!["a".to_string()], vec!["z".to_string()]];
                let options = DropPartitionsOptions::default();
                store
                    .drop_partitions("hive", "db", "events", &both, &options)
                    .unwrap();
            }
        }
    }

    /// Whether `a` and `z` are there once the change is applied.
    fn present_after(self) -> bool {
        matches!(self, Change::AddBothEnds)
    }
}

/// Lists with `list` while `change` is applied between the pages of the `scan_number`-th
/// partition scan (counting from 1 after `warm_up` ran), and returns what the listing saw.
fn race(
    change: Change,
    warm_up: impl Fn(&Store),
    scan_number: usize,
    list: impl Fn(&Store) -> Vec<String> + Send,
) -> Vec<String> {
    let (store, backend) = populated();
    change.prepare(&store);
    warm_up(&store);
    let (go_sender, go) = channel();
    let (done, done_receiver) = channel();
    *backend.pause.lock().unwrap() = Some(Pause {
        scans_left: scan_number,
        go: go_sender,
        done: done_receiver,
    });
    let seen = std::thread::scope(|scope| {
        let writer_store = store.clone();
        scope.spawn(move || {
            go.recv_timeout(PAUSE_TIMEOUT)
                .expect("the listing reaches the pause");
            change.apply(&writer_store);
            done.send(()).unwrap();
        });
        list(&store)
    });
    assert_eq!(
        backend.pauses_taken.load(Ordering::SeqCst),
        1,
        "the batch ran between two pages of the listing's scan"
    );
    seen
}

/// The values (of `p`) a listing shows once `change` is applied with no race at all.
fn values_after(change: Change) -> Vec<String> {
    let (store, _) = populated();
    change.prepare(&store);
    change.apply(&store);
    let names = store
        .list_partition_names("hive", "db", "events", -1)
        .unwrap();
    names.iter().map(|name| value_of(name)).collect()
}

fn value_of(name: &str) -> String {
    name.trim_start_matches("p=").to_string()
}

/// The listing shows `a` and `z` together or not at all (a stitched listing would show `z`
/// alone after an add, `a` alone after a drop) and, since it ended after the batch, exactly
/// what the store holds after it.
fn assert_whole(change: Change, seen: Vec<String>) {
    let has = |value: &str| seen.iter().any(|seen| seen == value);
    assert_eq!(
        (has("a"), has("z")),
        (change.present_after(), change.present_after()),
        "{change:?}: a listing showed part of a batch"
    );
    assert_eq!(seen, values_after(change), "{change:?}");
}

fn names(store: &Store) -> Vec<String> {
    let names = store
        .list_partition_names("hive", "db", "events", -1)
        .unwrap();
    names.iter().map(|name| value_of(name)).collect()
}

const CHANGES: [Change; 2] = [Change::AddBothEnds, Change::DropBothEnds];

/// A whole listing of names reads every name and keeps them: a listing after it answers
/// from what was kept, which must be whole too.
#[test]
fn a_listing_of_every_name_sees_a_batch_whole_and_keeps_it_whole() {
    for change in CHANGES {
        let seen = race(
            change,
            |_| {},
            1,
            |store: &Store| {
                let first = names(store);
                assert_eq!(names(store), first, "{change:?}: the kept names differ");
                first
            },
        );
        assert_whole(change, seen);
    }
}

#[test]
fn a_listing_of_whole_partitions_sees_a_batch_whole() {
    for change in CHANGES {
        let list = |store: &Store| {
            let partitions = store.list_partitions("hive", "db", "events", -1).unwrap();
            partitions
                .into_iter()
                .map(|p| p.values[0].clone())
                .collect()
        };
        assert_whole(change, race(change, |_| {}, 1, list));
    }
}

/// A filter that bounds no key range: the first such listing scans the keys, the second
/// reads every name to keep them, later ones test the kept names.
fn filtered(store: &Store) -> Vec<String> {
    let filter = "p <> 'none'";
    let names = store
        .list_partition_names_by_filter("hive", "db", "events", filter, -1)
        .unwrap();
    names.iter().map(|name| value_of(name)).collect()
}

#[test]
fn a_filtered_listing_sees_a_batch_whole() {
    for change in CHANGES {
        assert_whole(change, race(change, |_| {}, 1, filtered));
    }
}

/// A filter that bounds a key range: the first such listing scans the range; the second
/// at the same version reads every name to keep them, and the batch lands in the middle of
/// that read; a third answers from the kept names.
#[test]
fn the_names_read_to_be_kept_for_a_range_see_a_batch_whole() {
    let ranged = |store: &Store| -> Vec<String> {
        let filter = "p >= 'a'";
        let names = store
            .list_partition_names_by_filter("hive", "db", "events", filter, -1)
            .unwrap();
        names.iter().map(|name| value_of(name)).collect()
    };
    for change in CHANGES {
        let warm_up = |store: &Store| {
            ranged(store);
        };
        let seen = race(change, warm_up, 1, |store: &Store| {
            let second = ranged(store);
            assert_eq!(ranged(store), second, "{change:?}: the kept names differ");
            second
        });
        assert_whole(change, seen);
    }
}
