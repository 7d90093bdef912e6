//! The [`Store`]: a catalog over a [`KvBackend`], with serialised,
//! atomic, durable writes.
//!
//! Writers take one lock while they read what they check and apply their
//! batch; that makes every check-then-write (does the table exist? allocate
//! an id) race-free, and costs microseconds. They release it before waiting
//! for the flush, so the fsync is shared through [`crate::storage::commit`]. Readers
//! take no lock and never see half of a write; they may see one a moment
//! before it is durable, so answers are settled before they go out
//! (`visibility.rs`). If an apply or a flush fails, the store goes back to
//! its durable state at once ([`Store::reopen_after_failure`]): the failed
//! batch, and any applied after the last good flush, are gone for readers
//! and their writers are answered with the error.

use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::{SystemTime, UNIX_EPOCH};

use crate::backup::snapshot::Snapshots;
use crate::catalog::sweeper::Sweeper;
use crate::confinement::{check_external_roots, Roots};
use crate::error::{Error, Result};
use crate::events::counter::EventCounter;
use crate::grants::KeptGrants;
use crate::partitions::name_listing::KeptNames;
use crate::stats::kept::KeptStats;
use crate::storage::changes;
use crate::storage::commit::{CommitCounters, CommitPipeline};
use crate::storage::consistent::{PartitionVersions, Stripes, OPTIMISTIC_ATTEMPT_COUNT};
use crate::storage::keys::{self, FIRST_ID};
use crate::storage::kv::{self, KeyRange, KvBackend, KvBytes, WriteBatch, SCAN_PAGE_ENTRY_COUNT};
use crate::storage::values::{self, StoredValue, ValueView};
use crate::storage::visibility::{ReadMark, Visibility};
use crate::txns::acid::{AcidState, AcidTable, TXN_TIMEOUT_DEFAULT};
use crate::usage::{StoreUsage, UsageCounts};
use crate::warehouse::{Filesystem, LocalFilesystem, Undo, Warehouse};

/// Scans of a table's partitions a reader beside another process's writer tries before it
/// gives up (see [`Store::read_partitions_at_version`]).
pub const READER_SCAN_ATTEMPT_COUNT: usize = 32;

/// The version of the key and value layout as a whole, stored under
/// [`keys::META_FORMAT_VERSION`]. A store written by another version is not
/// opened.
pub const STORE_FORMAT_VERSION: u8 = 1;

/// When a write is acknowledged.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Durability {
    /// Once flushed to disk (fsync), with group commit. The default.
    #[default]
    Flush,
    /// Once applied in memory; the backend flushes on its own schedule.
    /// For tests and throw-away stores.
    Memory,
}

/// How to open a [`Store`].
#[derive(Debug, Clone)]
pub struct StoreOptions {
    /// The warehouse root: the location of catalog `hive` and database
    /// `default`, created on first open.
    pub warehouse_root: String,
    /// When writes are acknowledged.
    pub durability: Durability,
    /// The filesystem database and table directories are made, moved and
    /// deleted on, for `file:` and absolute-path locations (see
    /// [`crate::warehouse`]). `None`: metadata only, nothing is touched.
    pub filesystem: Option<Arc<dyn Filesystem>>,
    /// Local directories besides the warehouse root where data may be made, moved and
    /// deleted (absolute paths or `file:` URIs); anywhere else is refused (see
    /// `confinement.rs`). Empty by default: the warehouse root alone.
    pub external_roots: Vec<String>,
    /// Hive's `metastore.disallow.incompatible.col.type.changes` (default
    /// `true`): `alter_table` refuses column type changes Hive calls
    /// incompatible.
    pub disallow_incompatible_col_type_changes: bool,
    /// Hive's `metastore.txn.timeout`: a lock (or transaction) that has not been
    /// heartbeated for this long is released (see [`crate::txns::locks`]).
    pub txn_timeout: std::time::Duration,
    /// The sled backend's page cache, in bytes (see [`Store::open`]).
    pub page_cache_bytes: u64,
    /// Room the sled backend keeps free on its disk, so that it can go back to its durable
    /// state when the disk runs full (see [`kv::SledBackend::open_with_reserve`]).
    pub disk_reserve_bytes: u64,
    /// Whether a store created by [`Store::open`] compresses sled's log (zstd); a store that
    /// exists keeps the setting it was created with.
    pub compress_new_store: bool,
    /// How long parameter values, comments and type names may be (`value_limits.rs`).
    pub value_limits: crate::model::value_limits::ValueLimits,
    /// Whether changes write their notification events (true by default). An import writes
    /// none: the copy's log starts at its source's id ([`Store::raise_event_id`]) instead of
    /// holding an event per copied object.
    pub log_events: bool,
    /// Partitions' statistics a chunk of 128 may hold as recent slots in its delta, one value
    /// beside it, before a write merges them into it (see [`crate::stats::RECENT_SLOT_COUNT_MAX`], the
    /// default); 0 rewrites the chunk at every write. At most
    /// [`crate::stats::CHUNK_SLOT_COUNT`] matters.
    pub recent_slot_count_max: usize,
    /// Whether each batch also writes what it changed to the change log
    /// (`storage/changes.rs`), so that readers beside this writer ([`Store::open_reader`])
    /// keep what they keep current. Off by default: only a backend other processes read needs
    /// it (PostgreSQL).
    pub change_log: bool,
}

impl StoreOptions {
    /// Durable writes, the given warehouse root, directories on the local
    /// filesystem, Hive's default checks.
    pub fn new(warehouse_root: impl Into<String>) -> Self {
        StoreOptions {
            warehouse_root: warehouse_root.into(),
            durability: Durability::Flush,
            filesystem: Some(Arc::new(LocalFilesystem)),
            external_roots: Vec::new(),
            disallow_incompatible_col_type_changes: true,
            txn_timeout: TXN_TIMEOUT_DEFAULT,
            page_cache_bytes: crate::storage::kv::PAGE_CACHE_BYTES_DEFAULT,
            disk_reserve_bytes: crate::storage::kv::DISK_RESERVE_BYTES_DEFAULT,
            compress_new_store: true,
            value_limits: crate::model::value_limits::ValueLimits::default(),
            log_events: true,
            recent_slot_count_max: crate::stats::RECENT_SLOT_COUNT_MAX,
            change_log: false,
        }
    }

    /// These options without a filesystem: locations are recorded, no
    /// directory is ever made, moved or deleted.
    pub fn metadata_only(mut self) -> Self {
        self.filesystem = None;
        self
    }
}

/// The roots the warehouse is confined to. Without a filesystem nothing is touched, so nothing
/// is resolved; the external roots must still be local.
fn confinement_roots(options: &StoreOptions) -> Result<Roots> {
    let roots = if options.filesystem.is_some() {
        Roots::open(&options.warehouse_root, &options.external_roots)
    } else {
        check_external_roots(&options.external_roots).map(|()| Roots::default())
    };
    roots.map_err(Error::InvalidInput)
}

/// What one batch moves of the versions kept structures are valid for.
#[derive(Clone, Copy)]
struct KeptMoves {
    stripes: Stripes,
    slot_stripes: Stripes,
    grants: bool,
}

/// State only writers touch, under the writer lock.
struct WriterState {
    next_id: u64,
    /// The notification log's ids (see `crate::events`).
    events: EventCounter,
    /// The change log's last version, when batches are logged (see `storage/changes.rs`).
    change_version: Option<u64>,
}

/// The hivestore catalog: catalogs, databases, tables.
pub struct Store {
    backend: Arc<dyn KvBackend>,
    writer: Mutex<WriterState>,
    /// `None` under [`Durability::Memory`].
    commit: Option<CommitPipeline>,
    options: StoreOptions,
    warehouse: Warehouse,
    /// Lets partition listings see whole batches (see `consistent.rs`).
    pub(crate) partition_versions: PartitionVersions,
    /// Full partition name listings kept while their table is unchanged (see `name_listing.rs`).
    names: KeptNames,
    /// Deletes dropped tables' partitions after the drop (see `removal.rs`).
    sweeper: Sweeper,
    /// Locks and transactions, decided on under one mutex (see `txns/acid.rs`).
    acid: AcidTable,
    /// Which applied batches are durable, for settling answers (see `visibility.rs`).
    visibility: Arc<Visibility>,
    /// What the statistics keep and their change records (see `stats/kept.rs`).
    pub(crate) stats: KeptStats,
    /// Every role, membership and grant, kept while unchanged (see `grants/view.rs`).
    pub(crate) grants: KeptGrants,
    /// How often kept structures answered reads, and what removal sweeps did (`usage.rs`).
    pub(crate) usage: UsageCounts,
    /// The before-images of a backup being made while writes go on (see `backup/snapshot.rs`).
    pub(crate) snapshots: Snapshots,
    /// For a reader beside another process's writer ([`Store::open_reader`]): the last
    /// version of the change log it has caught up with; `None` for the writer.
    reader: Option<Mutex<u64>>,
}

impl Store {
    /// Opens (creating if needed) the sled store in `data_dir`.
    pub fn open(data_dir: &Path, options: StoreOptions) -> Result<Store> {
        let backend = crate::storage::open_disk_backend(
            data_dir,
            options.page_cache_bytes,
            options.disk_reserve_bytes,
            options.compress_new_store,
        )?;
        Store::open_with_backend(backend, options)
    }

    /// Opens a store over any backend; first open creates catalog `hive` and
    /// database `default`.
    pub fn open_with_backend(backend: Arc<dyn KvBackend>, options: StoreOptions) -> Result<Store> {
        check_format_version(backend.as_ref())?;
        let store = Store::open_parts(backend, options, None)?;
        store.bootstrap()?;
        // A drop interrupted by a crash left its partitions: finish deleting them.
        store.sweep_pending_removals()?;
        Ok(store)
    }

    /// Opens a store that another process writes, to read it beside that writer: over a
    /// backend both reach (PostgreSQL), whose writer logs its changes
    /// ([`StoreOptions::change_log`]). Every write is refused. Before it answers a call, a
    /// reader calls [`Store::catch_up`], after which its reads see every batch the writer had
    /// committed, and what it keeps in memory holds no value older than those.
    pub fn open_reader(backend: Arc<dyn KvBackend>, options: StoreOptions) -> Result<Store> {
        let key = keys::meta_key(keys::META_FORMAT_VERSION);
        if backend.get(&key)?.is_none() {
            return Err(Error::Unavailable(
                "the store has not been created yet: start its writing server first".to_string(),
            ));
        }
        check_format_version(backend.as_ref())?;
        let options = StoreOptions {
            durability: Durability::Memory,
            ..options
        };
        let version = changes::read_version(backend.as_ref())?;
        Store::open_parts(backend, options, Some(Mutex::new(version)))
    }

    fn open_parts(
        backend: Arc<dyn KvBackend>,
        options: StoreOptions,
        reader: Option<Mutex<u64>>,
    ) -> Result<Store> {
        let next_id = read_next_id(backend.as_ref())?;
        let events = EventCounter::load(backend.as_ref(), options.log_events)?;
        let change_version = if options.change_log && reader.is_none() {
            Some(changes::read_version(backend.as_ref())?)
        } else {
            None
        };
        let visibility = Arc::new(Visibility::default());
        let commit = match options.durability {
            Durability::Flush => Some(CommitPipeline::start(backend.clone(), visibility.clone())?),
            Durability::Memory => None,
        };
        let warehouse = Warehouse::new(options.filesystem.clone(), confinement_roots(&options)?);
        let acid = AcidTable::load(backend.as_ref(), &visibility)?;
        Ok(Store {
            backend,
            writer: Mutex::new(WriterState {
                next_id,
                events,
                change_version,
            }),
            commit,
            options,
            warehouse,
            partition_versions: PartitionVersions::new(),
            names: KeptNames::default(),
            sweeper: Sweeper::default(),
            acid,
            visibility,
            stats: KeptStats::new(),
            grants: KeptGrants::default(),
            usage: UsageCounts::default(),
            snapshots: Snapshots::default(),
            reader,
        })
    }

    /// Whether this store reads beside another process's writer ([`Store::open_reader`]).
    pub fn is_reader(&self) -> bool {
        self.reader.is_some()
    }

    /// For a reader: brings what it keeps up to the writer's last committed batch (one range
    /// scan of the change log when nothing changed). Every read that begins after it returns
    /// sees that batch and the ones before it. Nothing to do for the writer.
    pub fn catch_up(&self) -> Result<()> {
        let Some(reader) = &self.reader else {
            return Ok(());
        };
        let lock = || {
            reader
                .lock()
                .map_err(|_| Error::Internal("the reader's version lock is poisoned".to_string()))
        };
        // Calls read the log at once, each on its own connection; only moving what is kept
        // is one at a time. What a call finds after the version it read was written before
        // the call began or during it, so finding nothing means it is current.
        let seen = *lock()?;
        let since = changes::read_since(self.backend.as_ref(), seen)?;
        let mut version = lock()?;
        match since {
            changes::Since::Current => {}
            changes::Since::Batches(batches, reached) => {
                // Another call may have moved past some of them meanwhile.
                let first = seen + 1;
                for (batch_version, batch) in (first..).zip(&batches) {
                    if batch_version > *version {
                        self.observe(batch);
                    }
                }
                *version = (*version).max(reached);
            }
            changes::Since::Lost(reached) if reached > *version => {
                self.forget_everything_kept();
                self.backend.reopen()?;
                self.forget_everything_kept();
                *version = reached;
            }
            changes::Since::Lost(_) => {}
        }
        Ok(())
    }

    /// What a reader keeps, moved past `batch`, which the writer applied: as
    /// [`Store::apply_locked`] moves it around its own apply.
    fn observe(&self, batch: &WriteBatch) {
        let moves = self.begin_moving_kept(batch);
        self.backend.forget(batch);
        self.end_moving_kept(moves);
    }

    /// Before `batch` changes the backend (or, on a reader, what it keeps of it): the first
    /// move of the versions what is kept is valid for, as readers of those expect.
    fn begin_moving_kept(&self, batch: &WriteBatch) -> KeptMoves {
        let moves = KeptMoves {
            stripes: PartitionVersions::touched_by(batch),
            slot_stripes: PartitionVersions::slots_touched_by(batch),
            grants: KeptGrants::touched_by(batch),
        };
        if moves.grants {
            self.grants.bump();
        }
        // Before the stripes move, so that a reader at their new version finds it.
        self.stats
            .record(batch, &self.partition_versions, moves.slot_stripes);
        self.partition_versions.bump(moves.stripes);
        self.stats.slot_versions.bump(moves.slot_stripes);
        moves
    }

    /// After the change [`Store::begin_moving_kept`] began: the second move.
    fn end_moving_kept(&self, moves: KeptMoves) {
        self.stats.slot_versions.bump(moves.slot_stripes);
        self.partition_versions.bump(moves.stripes);
        if moves.grants {
            self.grants.bump();
        }
    }

    /// Drops every kept listing, statistic and grant view, as if one batch touched every
    /// table (called twice, around what changed, so that no read between the two keeps).
    fn forget_everything_kept(&self) {
        let every = Stripes::all();
        self.stats.forget_all(&self.partition_versions);
        self.partition_versions.bump(every);
        self.stats.slot_versions.bump(every);
        self.grants.bump();
    }

    /// Leaves the warehouse filesystem alone (`true`: changes record locations and make, move
    /// and delete nothing, as under [`StoreOptions::metadata_only`]) or touches it again: a
    /// copy following another metastore, whose source has done it already, until cut-over.
    pub fn set_warehouse_untouched(&self, untouched: bool) {
        self.warehouse.set_untouched(untouched);
    }

    /// The options the store was opened with.
    pub fn options(&self) -> &StoreOptions {
        &self.options
    }

    /// The group-commit counters, under [`Durability::Flush`].
    pub fn commit_counters(&self) -> Option<&CommitCounters> {
        self.commit
            .as_ref()
            .map(|commit| commit.counters().as_ref())
    }

    /// How often kept structures answered reads, and what removal sweeps did, since the open.
    pub fn usage(&self) -> StoreUsage {
        self.usage.snapshot()
    }

    /// The backend, for tools and tests that look at raw keys.
    pub fn backend(&self) -> &Arc<dyn KvBackend> {
        &self.backend
    }

    pub(crate) fn sweeper(&self) -> &Sweeper {
        &self.sweeper
    }

    /// The warehouse directories are handled through.
    pub(crate) fn warehouse(&self) -> &Warehouse {
        &self.warehouse
    }

    /// Runs `body` as one atomic write, acknowledged once durable.
    ///
    /// `body` reads what it checks through the [`WriteTxn`] and stages its
    /// writes there; if it fails nothing is written.
    pub(crate) fn write<R>(&self, body: impl FnOnce(&mut WriteTxn<'_>) -> Result<R>) -> Result<R> {
        let mut undo = Vec::new();
        self.write_with_undo(&mut undo, body)
    }

    /// [`Store::write`] for writes that change the warehouse before the
    /// commit: `body` records through [`WriteTxn::record_undo`] what it did
    /// there, and if the write fails (the batch not applied, or its flush
    /// failed, after which the store goes back to its durable state) it is
    /// taken back: a client writes nothing under a change it was refused.
    /// `undo` receives what was recorded.
    pub(crate) fn write_with_undo<R>(
        &self,
        undo: &mut Vec<Undo>,
        body: impl FnOnce(&mut WriteTxn<'_>) -> Result<R>,
    ) -> Result<R> {
        let result = self.write_tracked(undo, body);
        if result.is_err() {
            for action in undo.drain(..).rev() {
                self.warehouse.undo(action);
            }
        }
        result
    }

    fn write_tracked<R>(
        &self,
        undo: &mut Vec<Undo>,
        body: impl FnOnce(&mut WriteTxn<'_>) -> Result<R>,
    ) -> Result<R> {
        self.ready_to_write()?;
        let epoch_at_start = self.visibility.epoch();
        let announcement = self.commit.as_ref().map(CommitPipeline::announce);
        let result = {
            let mut state = self
                .writer
                .lock()
                .map_err(|_| Error::Internal("the writer lock is poisoned".to_string()))?;
            let id_before = state.next_id;
            let event_id_before = state.events.next_id();
            let mut txn = WriteTxn {
                backend: self.backend.as_ref(),
                state: &mut state,
                batch: WriteBatch::new(),
                undo: Vec::new(),
                event_time: now_seconds(),
            };
            let result = body(&mut txn);
            undo.append(&mut txn.undo);
            let WriteTxn { batch, .. } = txn;
            let result = match result {
                Ok(result) => result,
                Err(error) => {
                    // Event ids leave no gap: consumers take a gap for lost events.
                    state.events.give_back(event_id_before);
                    return Err(error);
                }
            };
            let mut batch = batch;
            state.events.stage_if_moved(event_id_before, &mut batch);
            if state.next_id != id_before {
                assert!(state.next_id > id_before, "ids must grow");
                batch.put(
                    keys::meta_key(keys::META_NEXT_ID),
                    state.next_id.to_be_bytes().to_vec(),
                );
            }
            if !batch.is_empty() {
                if let Err(error) = self.apply_locked(&mut state, batch) {
                    state.events.give_back(event_id_before);
                    state.next_id = id_before;
                    drop(state);
                    self.reopen_after(&error);
                    self.visibility.own_write_failed(epoch_at_start);
                    return Err(error);
                }
            }
            result
        };
        if let (Some(commit), Some(announcement)) = (&self.commit, announcement) {
            if let Err(error) = commit.wait_durable(announcement) {
                self.reopen_after(&error);
                self.visibility.own_write_failed(epoch_at_start);
                return Err(error);
            }
        }
        Ok(result)
    }

    /// Applies `batch` under the writer lock: numbered for settling, with the stripes and
    /// statistics change records moved around it as readers of those expect.
    fn apply_locked(&self, state: &mut WriterState, mut batch: WriteBatch) -> Result<()> {
        if let Some(version) = state.change_version {
            changes::stage(&mut batch, version + 1)?;
        }
        let moves = self.begin_moving_kept(&batch);
        self.snapshots.save_before(&batch, self.backend.as_ref());
        let sequence = self.visibility.begin_apply();
        let applied = self.backend.apply(batch);
        self.visibility.end_apply(sequence);
        self.end_moving_kept(moves);
        match &applied {
            Ok(()) => {
                if let Some(version) = &mut state.change_version {
                    *version += 1;
                }
            }
            Err(_) => self.visibility.set_broken(),
        }
        applied
    }

    /// Applies `batch` as one atomic write that is not waited for: a later write's flush, or
    /// an answer's settling, makes it durable. For housekeeping whose loss in a crash is
    /// harmless (the event cleaner's deletes, done again after a restart).
    pub(crate) fn apply_without_waiting(&self, batch: WriteBatch) -> Result<()> {
        self.ready_to_write()?;
        let mut state = self
            .writer
            .lock()
            .map_err(|_| Error::Internal("the writer lock is poisoned".to_string()))?;
        let applied = self.apply_locked(&mut state, batch);
        drop(state);
        if let Err(error) = &applied {
            self.reopen_after(error);
        }
        applied
    }

    /// A mark for a call beginning now: an answer it forms is sent only once
    /// [`Store::settle`] of it succeeds.
    pub fn read_mark(&self) -> ReadMark {
        self.visibility.mark()
    }

    /// Waits until everything the call marked by `mark` could have read is durable, asking
    /// for a flush if need be. `Err` when that cannot be: a flush failed, or the store went
    /// back to its durable state during the call, so that what it read may be lost; the
    /// answer must not be sent then, and the call may be retried. A call whose own write
    /// failed and brought the store back answers with that write's error, as it should: the
    /// mark, taken on the thread that serves the call, knows it. Under
    /// [`Durability::Memory`] nothing is ever durable and nothing is waited for.
    pub fn settle(&self, mark: ReadMark) -> Result<()> {
        if let Some(commit) = &self.commit {
            while !self.visibility.all_seen_durable() {
                if let Err(error) = commit.wait_durable(commit.announce()) {
                    self.reopen_after(&error);
                    return Err(Error::Unavailable(format!(
                        "what this call read could not be made durable ({error}); retry"
                    )));
                }
            }
        }
        if self.visibility.moved_since(mark) && !self.visibility.moved_by_own_failure(mark) {
            return Err(Error::Unavailable(
                "a write failed to reach the disk during this call and the store went back to its durable state; retry"
                    .to_string(),
            ));
        }
        Ok(())
    }

    /// After `error` from an apply or a flush: goes back to the durable state, or logs why
    /// it cannot (the next write or settle tries again).
    fn reopen_after(&self, error: &Error) {
        if !self.visibility.is_broken() {
            return;
        }
        tracing::error!(%error, "a write failed to reach the disk; going back to the durable state");
        if let Err(reopen_error) = self.reopen_after_failure() {
            tracing::error!(error = %reopen_error, "cannot go back to the durable state; the next call tries again");
        }
    }

    /// Before a write: the store back at its durable state if a write failed, and the backend
    /// taking writes (not short of disk).
    fn ready_to_write(&self) -> Result<()> {
        if self.reader.is_some() {
            return Err(Error::Refused(
                "this server reads beside the one that writes the store: writes go to that \
                 server"
                    .to_string(),
            ));
        }
        if self.visibility.is_broken() {
            self.reopen_after_failure()?;
        }
        self.backend.writable()
    }

    /// Makes the store what is on disk again after a failed apply or flush: the backend
    /// forgets what it applied since its last good flush, the writer's counters and the lock
    /// table are read again, and every kept listing and kept statistic is dropped, as if
    /// one batch had touched every table. Answers formed meanwhile do not settle.
    pub(crate) fn reopen_after_failure(&self) -> Result<()> {
        let mut state = self
            .writer
            .lock()
            .map_err(|_| Error::Internal("the writer lock is poisoned".to_string()))?;
        if !self.visibility.is_broken() {
            return Ok(()); // another call got there first
        }
        self.forget_everything_kept();
        self.visibility.begin_reopen();
        let reopened = self.backend.reopen().and_then(|()| {
            state.next_id = read_next_id(self.backend.as_ref())?;
            // Logging as before the failure: `start_logging_events` may have turned it on.
            let logging = state.events.is_logging();
            state.events = EventCounter::load(self.backend.as_ref(), logging)?;
            if state.change_version.is_some() {
                state.change_version = Some(changes::read_version(self.backend.as_ref())?);
            }
            Ok(())
        });
        self.forget_everything_kept();
        reopened?;
        self.visibility.end_reopen();
        tracing::warn!(
            reopens = self.visibility.reopen_count(),
            "the store is back at its durable state"
        );
        Ok(())
    }

    /// How many times the store went back to its durable state after a failed write.
    pub fn reopen_count(&self) -> u64 {
        self.visibility.reopen_count()
    }

    /// Runs `scan`, a read of `table`'s partitions, so that it sees every batch whole: again
    /// while a batch touching the table was applied during it, and at last holding the writer
    /// lock (see `consistent.rs`). `scan` is told the version of the table's stripe it reads
    /// at, for what is kept by it: a result is only returned if no batch touching the table
    /// was applied during its scan.
    pub(crate) fn read_partitions_at_version<R>(
        &self,
        table: keys::TableId,
        mut scan: impl FnMut(u64) -> Result<R>,
    ) -> Result<R> {
        let versions = &self.partition_versions;
        if self.reader.is_some() {
            return self.read_partitions_beside_writer(table, scan);
        }
        for _ in 0..OPTIMISTIC_ATTEMPT_COUNT {
            match versions.stable_version(table) {
                Some(version) => {
                    let result = scan(version)?;
                    if versions.unchanged(table, version) {
                        return Ok(result);
                    }
                }
                None => std::thread::yield_now(),
            }
        }
        let _writer = self
            .writer
            .lock()
            .map_err(|_| Error::Internal("the writer lock is poisoned".to_string()))?;
        // Writers move a stripe only while holding the lock: it is even and stays so.
        let version = versions
            .stable_version(table)
            .ok_or_else(|| Error::Internal("a partition batch outlived the writer lock".into()))?;
        scan(version)
    }

    /// [`Store::read_partitions_at_version`] on a reader, where batches are another
    /// process's: the scan is whole if catching up after it moved nothing of the table's.
    /// Nothing here holds that process's writers back, so a table written without pause can
    /// fail the read after [`READER_SCAN_ATTEMPT_COUNT`] scans.
    fn read_partitions_beside_writer<R>(
        &self,
        table: keys::TableId,
        mut scan: impl FnMut(u64) -> Result<R>,
    ) -> Result<R> {
        let versions = &self.partition_versions;
        // The call caught up before it began (see [`Store::catch_up`]); a retry after.
        for _ in 0..READER_SCAN_ATTEMPT_COUNT {
            // Odd only while another call's catch-up moves it, for microseconds.
            let version = loop {
                match versions.stable_version(table) {
                    Some(version) => break version,
                    None => std::thread::yield_now(),
                }
            };
            let result = scan(version)?;
            self.catch_up()?;
            if versions.unchanged(table, version) {
                return Ok(result);
            }
        }
        Err(Error::Unavailable(format!(
            "the table's partitions changed during each of {READER_SCAN_ATTEMPT_COUNT} reads; retry"
        )))
    }

    /// Runs `body` holding the writer lock: no batch is applied meanwhile.
    pub(crate) fn under_writer_lock<R>(&self, body: impl FnOnce() -> Result<R>) -> Result<R> {
        let _writer = self
            .writer
            .lock()
            .map_err(|_| Error::Internal("the writer lock is poisoned".to_string()))?;
        body()
    }

    /// The kept full name listings, and whether a kept one is still current.
    pub(crate) fn kept_names(&self) -> (&KeptNames, &PartitionVersions) {
        (&self.names, &self.partition_versions)
    }

    /// Reads the value at `key` in place, if present.
    pub(crate) fn view<T: StoredValue>(&self, key: &[u8]) -> Result<Option<ValueView<T>>> {
        read_view(self.backend.as_ref(), key)
    }

    /// Iterates over the entries of `range`, page by page.
    pub(crate) fn scan(&self, range: KeyRange) -> kv::Scan<'_> {
        kv::scan(self.backend.as_ref(), range, SCAN_PAGE_ENTRY_COUNT)
    }

    /// The committed state, for lookups shared with writers.
    pub(crate) fn reader(&self) -> &dyn KvBackend {
        self.backend.as_ref()
    }

    /// The lock and transaction state, under its mutex; read again from the store after it
    /// went back to its durable state.
    pub(crate) fn acid(&self) -> Result<std::sync::MutexGuard<'_, AcidState>> {
        self.acid.lock(self.backend.as_ref(), &self.visibility)
    }
}

/// A write in progress: reads the committed state, stages a batch.
pub(crate) struct WriteTxn<'a> {
    backend: &'a dyn KvBackend,
    state: &'a mut WriterState,
    batch: WriteBatch,
    /// Warehouse changes made before the commit, to take back if the batch
    /// is not applied.
    undo: Vec<Undo>,
    /// The time every event of this write carries.
    event_time: i32,
}

impl WriteTxn<'_> {
    /// The committed state, for lookups shared with readers.
    pub(crate) fn reader(&self) -> &dyn KvBackend {
        self.backend
    }

    /// The committed bytes at `key`. Staged writes are not visible.
    pub(crate) fn get(&self, key: &[u8]) -> Result<Option<KvBytes>> {
        self.backend.get(key)
    }

    /// The committed value at `key`, read in place.
    pub(crate) fn view<T: StoredValue>(&self, key: &[u8]) -> Result<Option<ValueView<T>>> {
        read_view(self.backend, key)
    }

    /// Iterates over committed entries of `range`.
    pub(crate) fn scan(&self, range: KeyRange) -> kv::Scan<'_> {
        kv::scan(self.backend, range, SCAN_PAGE_ENTRY_COUNT)
    }

    /// The time of this write, seconds since the epoch: what its events carry.
    pub(crate) fn event_time(&self) -> i32 {
        self.event_time
    }

    /// Records a warehouse change to take back if the batch is not applied.
    pub(crate) fn record_undo(&mut self, undo: Option<Undo>) {
        self.undo.extend(undo);
    }

    /// A fresh id, never handed out before, persisted with this write.
    pub(crate) fn allocate_id(&mut self) -> u64 {
        let id = self.state.next_id;
        self.state.next_id += 1;
        id
    }

    /// The notification log's counter and this write's batch, for appending events
    /// (`events/mod.rs`).
    pub(crate) fn event_log(&mut self) -> (&mut EventCounter, &mut WriteBatch) {
        (&mut self.state.events, &mut self.batch)
    }

    /// Stages `value` at `key`.
    pub(crate) fn put_value<T: StoredValue>(&mut self, key: Vec<u8>, value: &T) -> Result<()> {
        let stored = values::encode(value)?;
        self.batch.put(key, stored);
        Ok(())
    }

    /// Stages raw bytes at `key`.
    pub(crate) fn put_raw(&mut self, key: Vec<u8>, value: Vec<u8>) {
        self.batch.put(key, value);
    }

    /// Stages the removal of `key`.
    pub(crate) fn delete(&mut self, key: Vec<u8>) {
        self.batch.delete(key);
    }

    /// Stages the removal of every key in `range`; for ranges of bounded size (a dropped
    /// table's partitions go through `removal.rs` instead).
    pub(crate) fn delete_range(&mut self, range: KeyRange) -> Result<()> {
        let keys: Vec<KvBytes> = self
            .scan(range)
            .map(|entry| entry.map(|(key, _)| key))
            .collect::<Result<_>>()?;
        for key in keys {
            self.batch.delete(key.to_vec());
        }
        Ok(())
    }
}

pub(crate) fn read_view<T: StoredValue>(
    backend: &dyn KvBackend,
    key: &[u8],
) -> Result<Option<ValueView<T>>> {
    match backend.get(key)? {
        Some(stored) => {
            let key = KvBytes::from_shared(Arc::from(key));
            Ok(Some(ValueView::new(key, stored)?))
        }
        None => Ok(None),
    }
}

/// Checks (or, on a fresh store, writes) the store format version.
fn check_format_version(backend: &dyn KvBackend) -> Result<()> {
    let key = keys::meta_key(keys::META_FORMAT_VERSION);
    match backend.get(&key)? {
        Some(stored) if stored.as_ref() == [STORE_FORMAT_VERSION] => Ok(()),
        Some(stored) => Err(Error::corruption(
            &key,
            format!(
                "store format {:?}; this build reads format {STORE_FORMAT_VERSION}",
                &*stored
            ),
        )),
        None => {
            let mut batch = WriteBatch::new();
            batch.put(key, vec![STORE_FORMAT_VERSION]);
            backend.apply(batch)?;
            backend.flush()
        }
    }
}

/// The next id to hand out, as persisted.
fn read_next_id(backend: &dyn KvBackend) -> Result<u64> {
    let key = keys::meta_key(keys::META_NEXT_ID);
    match backend.get(&key)? {
        Some(stored) => {
            let next_id = keys::decode_id_value(&key, &stored)?;
            if next_id < FIRST_ID {
                return Err(Error::corruption(
                    &key,
                    format!("next id {next_id} is below {FIRST_ID}"),
                ));
            }
            Ok(next_id)
        }
        None => Ok(FIRST_ID),
    }
}

/// Seconds since the epoch, as Hive's `i32` timestamps.
pub(crate) fn now_seconds() -> i32 {
    let seconds = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|elapsed| elapsed.as_secs())
        .unwrap_or(0);
    i32::try_from(seconds).unwrap_or(i32::MAX)
}

/// A store in memory, without a warehouse filesystem, holding the empty databases `names`:
/// the start of the engine's unit tests.
#[cfg(test)]
pub(crate) fn memory_store_with_databases(names: &[&str]) -> Store {
    let mut options = StoreOptions::new("/warehouse").metadata_only();
    options.durability = Durability::Memory;
    let backend = Arc::new(crate::storage::kv::MemoryBackend::new());
    let store = Store::open_with_backend(backend, options).unwrap();
    for name in names {
        let database = crate::model::database::Database {
            name: (*name).to_string(),
            ..Default::default()
        };
        store.create_database(database).unwrap();
    }
    store
}
