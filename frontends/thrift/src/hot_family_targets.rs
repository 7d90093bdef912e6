//! What each method of the hot families names (`access.rs`): tables, partitions, statistics,
//! locks, transactions, compactions, the compactor and the notification log. The table below
//! says, for every method of these families that `methods::IMPLEMENTED` lists, what it needs of
//! which kind of object; a representative call of most of them, generic or fast, is made and
//! the objects it named (`Session::take_targets`) are checked against the table and by name.

use std::collections::BTreeSet;
use std::sync::Arc;

use hivestore_engine as engine;
use hivestore_idl::hive_metastore as idl;
use thrift::protocol::{TBinaryOutputProtocol, TMessageIdentifier, TMessageType, TOutputProtocol};

use crate::access::{Need, Privilege};
use crate::calls::{
    compactions, compactor, locks, materialized_views, notifications, partition_listings,
    partitions, stats, tables, txns,
};
use crate::detect::Protocol;
use crate::dispatch::{Arrived, Dispatcher};
use crate::limits::Limits;
use crate::methods::{Family, IMPLEMENTED};
use crate::service::{ServerState, Session};

/// The kinds of object a call names, as the audit log writes them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Kind {
    Server,
    Catalog,
    Database,
    Table,
    Transaction,
    Lock,
}

impl Kind {
    /// The kind of an object as the audit log writes it.
    fn of(written: &str) -> Kind {
        let kinds = [
            ("server", Kind::Server),
            ("cat=", Kind::Catalog),
            ("db=", Kind::Database),
            ("tbl=", Kind::Table),
            ("txnid=", Kind::Transaction),
            ("lockid=", Kind::Lock),
        ];
        kinds
            .iter()
            .find(|(prefix, _)| written.starts_with(prefix))
            .map(|(_, kind)| *kind)
            .unwrap_or_else(|| panic!("{written} is no object the audit log writes"))
    }
}

const HOT: [Family; 8] = [
    Family::Tables,
    Family::Partitions,
    Family::Statistics,
    Family::Locks,
    Family::Transactions,
    Family::Compactions,
    Family::Compactor,
    Family::Notifications,
];

const SELECT: Need = Need::Privilege(Privilege::Select);
const INSERT: Need = Need::Privilege(Privilege::Insert);
const UPDATE: Need = Need::Privilege(Privilege::Update);
const DELETE: Need = Need::Privilege(Privilege::Delete);
const CREATE: Need = Need::Privilege(Privilege::Create);
const DROP: Need = Need::Privilege(Privilege::Drop);
const ALTER: Need = Need::Privilege(Privilege::Alter);
const LOCK: Need = Need::Privilege(Privilege::Lock);

use Kind::{Catalog, Database, Lock, Server, Table, Transaction};
use Need::{Admin, Anyone, Owner, Superuser};

/// Every method of the hot families, by wire name, with what it may name: the need, and the
/// kind of object. A method naming several objects of one kind (each table of a batch, each
/// transaction) lists the kind once; one that names one kind or another, by its arguments,
/// lists both. Calls that name nothing: `add_partitions` of no partition (no table to name),
/// `set_aggr_stats_for` with no statistics, `heartbeat` with neither id, which act on nothing.
const TARGETS: &[(&str, &[(Need, Kind)])] = &[
    ("abort_Compactions", &[(Admin, Server)]),
    ("abort_txn", &[(Owner, Transaction), (Admin, Server)]),
    ("abort_txns", &[(Owner, Transaction)]),
    (
        "add_dynamic_partitions",
        &[(INSERT, Table), (Owner, Transaction)],
    ),
    ("add_partition", &[(INSERT, Table)]),
    ("add_partition_with_environment_context", &[(INSERT, Table)]),
    ("add_partitions", &[(INSERT, Table)]),
    ("add_partitions_pspec", &[(INSERT, Table)]),
    ("add_partitions_req", &[(INSERT, Table)]),
    ("add_write_ids_to_min_history", &[(Owner, Transaction)]),
    ("add_write_notification_log", &[(UPDATE, Table)]),
    ("add_write_notification_log_in_batch", &[(UPDATE, Table)]),
    (
        "allocate_table_write_ids",
        &[(INSERT, Table), (Owner, Transaction), (Admin, Server)],
    ),
    ("alter_partition", &[(ALTER, Table)]),
    (
        "alter_partition_with_environment_context",
        &[(ALTER, Table)],
    ),
    ("alter_partitions", &[(ALTER, Table)]),
    ("alter_partitions_req", &[(ALTER, Table)]),
    (
        "alter_partitions_with_environment_context",
        &[(ALTER, Table)],
    ),
    ("alter_table", &[(ALTER, Table), (CREATE, Database)]),
    ("alter_table_req", &[(ALTER, Table), (CREATE, Database)]),
    (
        "alter_table_with_cascade",
        &[(ALTER, Table), (CREATE, Database)],
    ),
    (
        "alter_table_with_environment_context",
        &[(ALTER, Table), (CREATE, Database)],
    ),
    ("append_partition", &[(INSERT, Table)]),
    ("append_partition_by_name", &[(INSERT, Table)]),
    (
        "append_partition_by_name_with_environment_context",
        &[(INSERT, Table)],
    ),
    ("append_partition_req", &[(INSERT, Table)]),
    (
        "append_partition_with_environment_context",
        &[(INSERT, Table)],
    ),
    ("check_lock", &[(Owner, Lock)]),
    ("commit_txn", &[(Owner, Transaction), (Admin, Server)]),
    ("compact", &[(ALTER, Table)]),
    ("compact2", &[(ALTER, Table)]),
    ("create_table", &[(CREATE, Database)]),
    ("create_table_req", &[(CREATE, Database)]),
    (
        "create_table_with_environment_context",
        &[(CREATE, Database)],
    ),
    ("delete_partition_column_statistics", &[(UPDATE, Table)]),
    ("delete_table_column_statistics", &[(UPDATE, Table)]),
    ("drop_partition", &[(DELETE, Table)]),
    ("drop_partition_by_name", &[(DELETE, Table)]),
    (
        "drop_partition_by_name_with_environment_context",
        &[(DELETE, Table)],
    ),
    ("drop_partition_req", &[(DELETE, Table)]),
    (
        "drop_partition_with_environment_context",
        &[(DELETE, Table)],
    ),
    ("drop_partitions_req", &[(DELETE, Table)]),
    ("drop_table", &[(DROP, Table)]),
    ("drop_table_req", &[(DROP, Table)]),
    ("drop_table_with_environment_context", &[(DROP, Table)]),
    ("exchange_partition", &[(DELETE, Table), (INSERT, Table)]),
    ("exchange_partitions", &[(DELETE, Table), (INSERT, Table)]),
    ("fetch_partition_names_req", &[(SELECT, Table)]),
    ("find_columns_with_stats", &[(Admin, Server)]),
    ("find_next_compact", &[(Admin, Server)]),
    ("find_next_compact2", &[(Admin, Server)]),
    ("fire_listener_event", &[(UPDATE, Table)]),
    ("get_aggr_stats_for", &[(SELECT, Table)]),
    (
        "get_all_materialized_view_objects_for_rewriting",
        &[(Anyone, Server)],
    ),
    ("get_all_tables", &[(Anyone, Database)]),
    ("get_all_write_event_info", &[(Superuser, Server)]),
    ("get_current_notificationEventId", &[(Superuser, Server)]),
    ("get_fields", &[(SELECT, Table)]),
    ("get_fields_req", &[(SELECT, Table)]),
    ("get_fields_with_environment_context", &[(SELECT, Table)]),
    ("get_latest_committed_compaction_info", &[(Admin, Server)]),
    ("get_latest_txnid_in_conflict", &[(Anyone, Server)]),
    (
        "get_lock_materialization_rebuild",
        &[(LOCK, Table), (Owner, Transaction)],
    ),
    ("get_materialization_invalidation_info", &[(SELECT, Table)]),
    (
        "get_materialized_views_for_rewriting",
        &[(Anyone, Database), (Anyone, Catalog)],
    ),
    ("get_max_allocated_table_write_id", &[(SELECT, Table)]),
    ("get_next_notification", &[(Superuser, Server)]),
    ("get_notification_events_count", &[(Superuser, Server)]),
    ("get_num_partitions_by_filter", &[(SELECT, Table)]),
    ("get_open_txns", &[(Anyone, Server)]),
    ("get_open_txns_info", &[(Anyone, Server)]),
    ("get_open_txns_req", &[(Anyone, Server)]),
    ("get_part_specs_by_filter", &[(SELECT, Table)]),
    ("get_partition", &[(SELECT, Table)]),
    ("get_partition_by_name", &[(SELECT, Table)]),
    ("get_partition_column_statistics", &[(SELECT, Table)]),
    ("get_partition_names", &[(SELECT, Table)]),
    ("get_partition_names_ps", &[(SELECT, Table)]),
    ("get_partition_names_ps_req", &[(SELECT, Table)]),
    ("get_partition_names_req", &[(SELECT, Table)]),
    ("get_partition_req", &[(SELECT, Table)]),
    ("get_partition_values", &[(SELECT, Table)]),
    ("get_partition_with_auth", &[(SELECT, Table)]),
    ("get_partitions", &[(SELECT, Table)]),
    ("get_partitions_by_expr", &[(SELECT, Table)]),
    ("get_partitions_by_filter", &[(SELECT, Table)]),
    ("get_partitions_by_filter_req", &[(SELECT, Table)]),
    ("get_partitions_by_names", &[(SELECT, Table)]),
    ("get_partitions_by_names_req", &[(SELECT, Table)]),
    ("get_partitions_ps", &[(SELECT, Table)]),
    ("get_partitions_ps_with_auth", &[(SELECT, Table)]),
    ("get_partitions_ps_with_auth_req", &[(SELECT, Table)]),
    ("get_partitions_pspec", &[(SELECT, Table)]),
    ("get_partitions_req", &[(SELECT, Table)]),
    ("get_partitions_spec_by_expr", &[(SELECT, Table)]),
    ("get_partitions_statistics_req", &[(SELECT, Table)]),
    ("get_partitions_with_auth", &[(SELECT, Table)]),
    ("get_partitions_with_specs", &[(SELECT, Table)]),
    ("get_schema", &[(SELECT, Table)]),
    ("get_schema_req", &[(SELECT, Table)]),
    ("get_schema_with_environment_context", &[(SELECT, Table)]),
    ("get_table", &[(SELECT, Table)]),
    ("get_table_column_statistics", &[(SELECT, Table)]),
    ("get_table_meta", &[(Anyone, Server)]),
    ("get_table_names_by_filter", &[(Anyone, Database)]),
    ("get_table_objects_by_name", &[(SELECT, Table)]),
    (
        "get_table_objects_by_name_req",
        &[(SELECT, Table), (Anyone, Database)],
    ),
    ("get_table_req", &[(SELECT, Table)]),
    ("get_table_statistics_req", &[(SELECT, Table)]),
    ("get_tables", &[(Anyone, Database)]),
    ("get_tables_by_type", &[(Anyone, Database)]),
    ("get_tables_ext", &[(Anyone, Database)]),
    ("get_valid_write_ids", &[(SELECT, Table)]),
    ("heartbeat", &[(Owner, Lock), (Owner, Transaction)]),
    (
        "heartbeat_lock_materialization_rebuild",
        &[(Owner, Transaction)],
    ),
    ("heartbeat_txn_range", &[(Owner, Transaction)]),
    ("isPartitionMarkedForEvent", &[(SELECT, Table)]),
    (
        "lock",
        &[
            (SELECT, Table),
            (INSERT, Table),
            (LOCK, Table),
            (SELECT, Database),
            (INSERT, Database),
            (LOCK, Database),
            (Owner, Transaction),
        ],
    ),
    ("markPartitionForEvent", &[(ALTER, Table)]),
    ("mark_cleaned", &[(Admin, Server)]),
    ("mark_compacted", &[(Admin, Server)]),
    ("mark_failed", &[(Admin, Server)]),
    ("mark_refused", &[(Admin, Server)]),
    ("open_txns", &[(Anyone, Server), (Admin, Server)]),
    ("partition_name_has_valid_characters", &[(Anyone, Server)]),
    ("partition_name_to_spec", &[(Anyone, Server)]),
    ("partition_name_to_vals", &[(Anyone, Server)]),
    ("remove_compaction_metrics_data", &[(Admin, Server)]),
    ("rename_partition", &[(ALTER, Table)]),
    ("rename_partition_req", &[(ALTER, Table)]),
    ("repl_tbl_writeid_state", &[(Admin, Server)]),
    ("seed_txn_id", &[(Admin, Server)]),
    ("seed_write_id", &[(Admin, Server)]),
    ("set_aggr_stats_for", &[(UPDATE, Table)]),
    ("set_hadoop_jobid", &[(Admin, Server)]),
    ("show_compact", &[(Anyone, Server)]),
    ("show_locks", &[(Anyone, Server)]),
    ("submit_for_cleanup", &[(Admin, Server)]),
    ("translate_table_dryrun", &[(CREATE, Database)]),
    ("truncate_table", &[(DELETE, Table)]),
    ("truncate_table_req", &[(DELETE, Table)]),
    ("unlock", &[(Owner, Lock)]),
    ("update_compaction_metrics_data", &[(Admin, Server)]),
    ("update_compactor_state", &[(Admin, Server)]),
    ("update_creation_metadata", &[(ALTER, Table)]),
    ("update_partition_column_statistics", &[(UPDATE, Table)]),
    ("update_partition_column_statistics_req", &[(UPDATE, Table)]),
    ("update_table_column_statistics", &[(UPDATE, Table)]),
    ("update_table_column_statistics_req", &[(UPDATE, Table)]),
    // Its table is named by id alone: the server stands for it.
    ("update_transaction_statistics", &[(UPDATE, Server)]),
];

/// The kinds of object `method` may name, by the table.
fn kinds(method: &str) -> BTreeSet<Kind> {
    let (_, named) = TARGETS
        .iter()
        .find(|(name, _)| *name == method)
        .unwrap_or_else(|| panic!("{method} is not in the table"));
    named.iter().map(|(_, kind)| *kind).collect()
}

#[test]
fn the_table_lists_every_method_of_the_hot_families() {
    let implemented: BTreeSet<&str> = IMPLEMENTED
        .iter()
        .filter(|method| HOT.contains(&method.family))
        .map(|method| method.name)
        .collect();
    let listed: BTreeSet<&str> = TARGETS.iter().map(|(name, _)| *name).collect();
    assert_eq!(listed.len(), TARGETS.len(), "a method listed twice");
    assert_eq!(listed, implemented);
    for (method, named) in TARGETS {
        assert!(!named.is_empty(), "{method} names nothing");
    }
}

/// A store with databases `db` and `db2`; in `db`, tables `t` and `u` partitioned by `ds`
/// and `hr`, `t` with partition `ds=2024-01-01/hr=1`.
fn state() -> Arc<ServerState> {
    let store = crate::direct::memory_store_with_db();
    store
        .create_database(engine::Database {
            name: "db2".into(),
            ..engine::Database::default()
        })
        .unwrap();
    let field = |name: &str, type_name: &str| engine::FieldSchema {
        name: name.into(),
        type_name: type_name.into(),
        comment: None,
    };
    for name in ["t", "u"] {
        store
            .create_table(engine::Table {
                table_name: name.into(),
                db_name: "db".into(),
                cat_name: "hive".into(),
                table_type: Some("EXTERNAL_TABLE".into()),
                sd: Some(engine::StorageDescriptor {
                    cols: vec![field("id", "bigint")],
                    num_buckets: -1,
                    ..engine::StorageDescriptor::default()
                }),
                partition_keys: vec![field("ds", "string"), field("hr", "int")],
                write_id: -1,
                ..engine::Table::default()
            })
            .unwrap();
    }
    let partition = engine::Partition {
        values: vec!["2024-01-01".into(), "1".into()],
        ..engine::Partition::default()
    };
    let options = engine::AddPartitionsOptions::default();
    store
        .add_partitions("hive", "db", "t", vec![partition], &options)
        .unwrap();
    Arc::new(ServerState::new(store))
}

fn session(state: &Arc<ServerState>) -> Session {
    Session::new(Arc::clone(state), "127.0.0.1:9083".parse().unwrap())
}

/// A dispatcher whose state writes the audit log to a file of `dir`: the dispatcher takes
/// each call's targets for its audit line, so a dispatched call's targets are read there.
fn audited(dir: &std::path::Path) -> (Dispatcher, Arc<crate::audit::AuditLog>, std::path::PathBuf) {
    use crate::audit::{AuditDestination, AuditFormat, AuditLog, AuditSettings};
    let path = dir.join("audit.log");
    let settings = AuditSettings {
        destination: AuditDestination::File(path.clone()),
        format: AuditFormat::Text,
    };
    let audit = Arc::new(AuditLog::start(&settings).unwrap().unwrap());
    let state = Arc::into_inner(state())
        .unwrap()
        .with_audit(Arc::clone(&audit));
    let state = Arc::new(state);
    let dispatcher = Dispatcher::new(session(&state), Arc::clone(&state), Limits::default());
    (dispatcher, audit, path)
}

/// Checks that the last audited call was `method`'s and named `expected`, in order, and only
/// kinds its row lists.
fn assert_audited(
    audit: &crate::audit::AuditLog,
    path: &std::path::Path,
    method: &str,
    expected: &[&str],
) {
    audit.flush();
    let text = std::fs::read_to_string(path).unwrap();
    let line = text.lines().last().unwrap_or_default();
    let command = line
        .split('\t')
        .find_map(|field| field.strip_prefix("cmd="))
        .unwrap_or_else(|| panic!("{method}: no command in {line:?}"));
    let (called, objects) = command.split_once(" : ").unwrap_or((command, ""));
    assert_eq!(called, method, "{line}");
    let named: Vec<&str> = objects.split(", ").filter(|o| !o.is_empty()).collect();
    assert_eq!(named, expected, "{method}");
    let allowed = kinds(method);
    for written in named {
        assert!(
            allowed.contains(&Kind::of(written)),
            "{method} named {written}"
        );
    }
}

/// Checks that `method`'s call named `expected`, in order, and only kinds its row lists.
fn assert_named(session: &Session, method: &str, expected: &[&str]) {
    let targets = session.take_targets();
    assert_eq!(targets.named, expected, "{method}");
    assert_eq!(targets.omitted, 0, "{method}");
    let allowed = kinds(method);
    for written in &targets.named {
        let kind = Kind::of(written);
        assert!(allowed.contains(&kind), "{method} named {written}");
    }
}

const TABLE_T: &str = "tbl=hive.db.t";

/// A partition of `db.t` as a client sends it.
fn partition(values: [&str; 2]) -> idl::Partition {
    idl::Partition {
        values: Some(values.iter().map(|value| value.to_string()).collect()),
        db_name: Some("db".into()),
        table_name: Some("t".into()),
        create_time: None,
        last_access_time: None,
        sd: None,
        parameters: None,
        privileges: None,
        cat_name: None,
        write_id: None,
        is_stats_compliant: None,
        col_stats: None,
        file_metadata: None,
    }
}

/// Goal: the generic calls name what the table says, by name. Method: a call of each of a
/// representative set, whether it succeeds or not (what a call names it names before it
/// acts), and the objects it named read back.
#[test]
fn generic_calls_name_their_objects() {
    let state = state();
    let session = &session(&state);
    let strings = |values: &[&str]| values.iter().map(|v| v.to_string()).collect::<Vec<_>>();

    drop(tables::get(session, "@hive#DB".into(), "t".into()));
    assert_named(session, "get_table", &["tbl=hive.DB.t"]);
    drop(tables::fields(session, "db".into(), "t".into()));
    assert_named(session, "get_fields", &[TABLE_T]);
    drop(tables::list_matching(session, "db".into(), "*".into()));
    assert_named(session, "get_tables", &["db=hive.db"]);
    drop(tables::meta(session, "d*".into(), "*".into(), Vec::new()));
    assert_named(session, "get_table_meta", &["server"]);
    let names = strings(&["t", "u", "T ", "missing"]);
    drop(tables::get_by_names(session, "db".into(), names));
    let each = ["tbl=hive.db.t", "tbl=hive.db.u", "tbl=hive.db.missing"];
    assert_named(session, "get_table_objects_by_name", &each);
    let mut renamed = tables::get(session, "db".into(), "u".into()).unwrap();
    session.take_targets();
    renamed.db_name = Some("db2".into());
    renamed.table_name = Some("v".into());
    tables::alter(session, "db".into(), "u".into(), renamed).unwrap();
    assert_named(session, "alter_table", &["tbl=hive.db.u", "db=hive.db2"]);
    drop(tables::truncate(
        session,
        "db".into(),
        "t".into(),
        Vec::new(),
    ));
    assert_named(session, "truncate_table", &[TABLE_T]);
    tables::drop_one(session, "db2".into(), "v".into(), false).unwrap();
    assert_named(session, "drop_table", &["tbl=hive.db2.v"]);

    partitions::add(session, partition(["2024-01-02", "1"])).unwrap();
    assert_named(session, "add_partition", &[TABLE_T]);
    let by_name = "ds=2024-01-03/hr=1".to_string();
    partitions::append_by_name(session, "db".into(), "t".into(), by_name).unwrap();
    assert_named(session, "append_partition_by_name", &[TABLE_T]);
    let values = strings(&["2024-01-02", "1"]);
    partitions::get(session, "db".into(), "t".into(), values.clone()).unwrap();
    assert_named(session, "get_partition", &[TABLE_T]);
    partitions::drop_values(session, "db".into(), "t".into(), values, false).unwrap();
    assert_named(session, "drop_partition", &[TABLE_T]);
    let spec = [("ds".to_string(), "2024-01-03".to_string())].into();
    let exchanged = partitions::exchange_many(
        session,
        spec,
        "db".into(),
        "t".into(),
        "db".into(),
        "missing".into(),
    );
    drop(exchanged);
    assert_named(
        session,
        "exchange_partitions",
        &[TABLE_T, "tbl=hive.db.missing"],
    );
    drop(partitions::name_to_values(session, "ds=1/hr=2".into()));
    assert_named(session, "partition_name_to_vals", &["server"]);
    drop(partition_listings::count_by_filter(
        session,
        "db".into(),
        "t".into(),
        "hr = 1".into(),
    ));
    assert_named(session, "get_num_partitions_by_filter", &[TABLE_T]);

    let no_statistics = idl::SetPartitionsStatsRequest {
        col_stats: Vec::new(),
        need_merge: None,
        write_id: None,
        valid_write_id_list: None,
        engine: None,
    };
    stats::set_aggr(session, no_statistics).unwrap();
    assert_named(session, "set_aggr_stats_for", &[]);
    drop(stats::delete_table(
        session,
        "db".into(),
        "t".into(),
        String::new(),
        String::new(),
    ));
    assert_named(session, "delete_table_column_statistics", &[TABLE_T]);
    let transaction = idl::UpdateTransactionalStatsRequest {
        table_id: 1,
        insert_count: 1,
        updated_count: 0,
        deleted_count: 0,
    };
    drop(stats::update_transaction(session, transaction));
    assert_named(session, "update_transaction_statistics", &["server"]);

    drop(materialized_views::names_for_rewriting(
        session,
        "@hive#".into(),
    ));
    assert_named(
        session,
        "get_materialized_views_for_rewriting",
        &["cat=hive"],
    );
    drop(notifications::current(session));
    assert_named(session, "get_current_notificationEventId", &["server"]);
    drop(compactor::find_next(session, "worker".into()));
    assert_named(session, "find_next_compact", &["server"]);
    let show = idl::ShowCompactRequest {
        id: None,
        pool_name: None,
        db_name: None,
        tb_name: None,
        part_name: None,
        type_: None,
        state: None,
        limit: None,
        order: None,
    };
    compactions::show(session, show).unwrap();
    assert_named(session, "show_compact", &["server"]);
}

/// Goal: the lock and transaction calls name their tables (once each, whatever the
/// components), transactions and locks. Method: a transaction opened, a lock of two
/// partitions of one table and a database taken in it, then heartbeats, write ids, the
/// lock's release and the commit.
#[test]
fn lock_and_transaction_calls_name_their_objects() {
    let state = state();
    let session = &session(&state);
    let open = idl::OpenTxnRequest {
        num_txns: 1,
        user: "alice".into(),
        hostname: "localhost".into(),
        agent_info: None,
        repl_policy: None,
        repl_src_txn_ids: None,
        txn_type: None,
    };
    let txn_id = txns::open(session, open).unwrap().txn_ids[0];
    assert_named(session, "open_txns", &["server"]);
    let txn = format!("txnid={txn_id}");
    let component =
        |type_: idl::LockType, level: idl::LockLevel, partition: Option<&str>| idl::LockComponent {
            type_,
            level,
            dbname: "db".into(),
            tablename: (level != idl::LockLevel::DB).then(|| "t".into()),
            partitionname: partition.map(str::to_string),
            operation_type: None,
            is_transactional: None,
            is_dynamic_partition_write: None,
        };
    let request = idl::LockRequest {
        component: vec![
            component(
                idl::LockType::SHARED_WRITE,
                idl::LockLevel::PARTITION,
                Some("ds=2024-01-01/hr=1"),
            ),
            component(
                idl::LockType::SHARED_WRITE,
                idl::LockLevel::PARTITION,
                Some("ds=2024-01-02/hr=1"),
            ),
            component(idl::LockType::SHARED_READ, idl::LockLevel::DB, None),
        ],
        txnid: Some(txn_id),
        user: "alice".into(),
        hostname: "localhost".into(),
        agent_info: None,
        zero_wait_read_enabled: None,
        exclusive_c_t_a_s: None,
        lockless_reads_enabled: None,
    };
    let lock_id = locks::lock(session, request).unwrap().lockid;
    assert_named(session, "lock", &[TABLE_T, "db=hive.db", &txn]);
    let lock = format!("lockid={lock_id}");
    locks::check(session, idl::CheckLockRequest::new(lock_id, None, None)).unwrap();
    assert_named(session, "check_lock", &[&lock]);
    let heartbeat = idl::HeartbeatRequest::new(Some(lock_id), Some(txn_id));
    locks::heartbeat(session, heartbeat).unwrap();
    assert_named(session, "heartbeat", &[&lock, &txn]);
    let range = idl::HeartbeatTxnRangeRequest::new(txn_id, txn_id + 1);
    txns::heartbeat_range(session, range).unwrap();
    let next = format!("txnid={}", txn_id + 1);
    assert_named(session, "heartbeat_txn_range", &[&txn, &next]);
    let allocate = idl::AllocateTableWriteIdsRequest {
        db_name: "db".into(),
        table_name: "t".into(),
        txn_ids: Some(vec![txn_id]),
        repl_policy: None,
        src_txn_to_write_id_list: None,
        reallocate: None,
    };
    drop(txns::allocate_write_ids(session, allocate));
    assert_named(session, "allocate_table_write_ids", &[TABLE_T, &txn]);
    let valid = idl::GetValidWriteIdsRequest {
        full_table_names: vec!["db.t".into(), "db.u".into()],
        valid_txn_list: None,
        write_id: None,
    };
    drop(txns::valid_write_ids(session, valid));
    assert_named(session, "get_valid_write_ids", &[TABLE_T, "tbl=hive.db.u"]);
    let show = idl::ShowLocksRequest::new(None, None, None, None, None);
    locks::show(session, show).unwrap();
    assert_named(session, "show_locks", &["server"]);
    drop(locks::unlock(session, idl::UnlockRequest::new(lock_id)));
    assert_named(session, "unlock", &[&lock]);
    let commit = idl::CommitTxnRequest {
        txnid: txn_id,
        repl_policy: None,
        write_event_infos: None,
        repl_last_id_info: None,
        key_value: None,
        excl_write_enabled: None,
        txn_type: None,
    };
    drop(txns::commit(session, commit));
    assert_named(session, "commit_txn", &[&txn]);
    let abort = idl::AbortTxnsRequest {
        txn_ids: vec![-1, txn_id + 7, txn_id + 8],
        error_code: None,
    };
    drop(txns::abort_many(session, abort));
    let (seventh, eighth) = (
        format!("txnid={}", txn_id + 7),
        format!("txnid={}", txn_id + 8),
    );
    assert_named(session, "abort_txns", &[&seventh, &eighth]);
}

/// A binary-protocol call of `method` whose arguments `write` writes, as the generated client
/// writes it.
fn binary_call(
    method: &str,
    write: impl FnOnce(&mut dyn TOutputProtocol) -> thrift::Result<()>,
) -> Vec<u8> {
    let mut message = Vec::new();
    let mut o = TBinaryOutputProtocol::new(&mut message, true);
    o.write_message_begin(&TMessageIdentifier::new(method, TMessageType::Call, 3))
        .unwrap();
    write(&mut o).unwrap();
    o.write_message_end().unwrap();
    message
}

/// Goal: the fast paths name what their generic paths name, once, through a whole dispatch.
/// Method: encoded calls of a listing, `get_table`, `get_partitions_by_names` (its names read
/// in place), `get_partitions_statistics_req`, `add_partitions` read as it arrives and a
/// drop, each dispatched as a connection does and its objects read from the dispatcher's
/// session; then a `get_table_req` the fast path declines (a reader's snapshot), named once
/// by the generic path.
#[test]
fn fast_paths_name_their_objects_once() {
    use idl::*;
    let dir = std::env::temp_dir().join(format!("hivestore-fast-named-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (dispatcher, audit, path) = audited(&dir);
    let dispatch = |method: &str, message: &[u8]| {
        let mut reply = Vec::new();
        dispatcher
            .dispatch(message, Protocol::Binary, &mut reply)
            .unwrap_or_else(|error| panic!("{method}: {error}"));
        assert!(!reply.is_empty(), "{method}");
        assert_audited(&audit, &path, method, &[TABLE_T]);
    };
    let get_table = ThriftHiveMetastoreGetTableArgs {
        dbname: "db".into(),
        tbl_name: "t".into(),
    };
    dispatch(
        "get_table",
        &binary_call("get_table", |o| get_table.write_to_out_protocol(o)),
    );
    let names = ThriftHiveMetastoreGetPartitionNamesArgs {
        db_name: "db".into(),
        tbl_name: "t".into(),
        max_parts: -1,
    };
    let message = binary_call("get_partition_names", |o| names.write_to_out_protocol(o));
    dispatch("get_partition_names", &message);
    let by_filter = ThriftHiveMetastoreGetPartitionsByFilterArgs {
        db_name: "db".into(),
        tbl_name: "t".into(),
        filter: "hr = 1".into(),
        max_parts: -1,
    };
    let message = binary_call("get_partitions_by_filter", |o| {
        by_filter.write_to_out_protocol(o)
    });
    dispatch("get_partitions_by_filter", &message);
    let by_names = ThriftHiveMetastoreGetPartitionsByNamesArgs {
        db_name: "db".into(),
        tbl_name: "t".into(),
        names: vec!["ds=2024-01-01/hr=1".into()],
    };
    let message = binary_call("get_partitions_by_names", |o| {
        by_names.write_to_out_protocol(o)
    });
    dispatch("get_partitions_by_names", &message);
    let statistics = ThriftHiveMetastoreGetPartitionsStatisticsReqArgs {
        request: PartitionsStatsRequest {
            db_name: "db".into(),
            tbl_name: "t".into(),
            col_names: vec!["id".into()],
            part_names: vec!["ds=2024-01-01/hr=1".into()],
            cat_name: None,
            valid_write_id_list: None,
            engine: None,
        },
    };
    let message = binary_call("get_partitions_statistics_req", |o| {
        statistics.write_to_out_protocol(o)
    });
    dispatch("get_partitions_statistics_req", &message);

    let add = ThriftHiveMetastoreAddPartitionsArgs {
        new_parts: vec![partition(["2024-02-01", "1"])],
    };
    let message = binary_call("add_partitions", |o| add.write_to_out_protocol(o));
    let method = dispatcher.arriving_method("add_partitions").unwrap();
    let mut reply = Vec::new();
    let arrived = dispatcher
        .dispatch_arriving(method, &mut &message[..], &mut reply)
        .unwrap();
    assert!(matches!(arrived, Arrived::Answered(_)), "{arrived:?}");
    assert_audited(&audit, &path, "add_partitions", &[TABLE_T]);

    let drop_request = ThriftHiveMetastoreDropPartitionArgs {
        db_name: "db".into(),
        tbl_name: "t".into(),
        part_vals: vec!["2024-02-01".into(), "1".into()],
        delete_data: false,
    };
    dispatch(
        "drop_partition",
        &binary_call("drop_partition", |o| drop_request.write_to_out_protocol(o)),
    );

    let declined = ThriftHiveMetastoreGetTableReqArgs {
        req: GetTableRequest {
            db_name: "db".into(),
            tbl_name: "t".into(),
            capabilities: None,
            cat_name: None,
            valid_write_id_list: Some("db.t:1:9223372036854775807::".into()),
            get_column_stats: None,
            processor_capabilities: None,
            processor_identifier: None,
            engine: None,
            id: None,
        },
    };
    dispatch(
        "get_table_req",
        &binary_call("get_table_req", |o| declined.write_to_out_protocol(o)),
    );

    // A materialized view is declined after the fast path named it: named once all the same.
    let view = engine::Table {
        table_name: "mv".into(),
        db_name: "db".into(),
        cat_name: "hive".into(),
        table_type: Some("MATERIALIZED_VIEW".into()),
        view_original_text: Some("select id from db.t".into()),
        view_expanded_text: Some("select `t`.`id` from `db`.`t`".into()),
        creation_metadata: Some(engine::CreationMetadata {
            cat_name: "hive".into(),
            db_name: "db".into(),
            tbl_name: "mv".into(),
            tables_used: vec!["db.t".into()],
            ..engine::CreationMetadata::default()
        }),
        write_id: -1,
        ..engine::Table::default()
    };
    dispatcher.session().store().create_table(view).unwrap();
    let get_view = ThriftHiveMetastoreGetTableArgs {
        dbname: "db".into(),
        tbl_name: "mv".into(),
    };
    let mut reply = Vec::new();
    dispatcher
        .dispatch(
            &binary_call("get_table", |o| get_view.write_to_out_protocol(o)),
            Protocol::Binary,
            &mut reply,
        )
        .unwrap();
    assert_audited(&audit, &path, "get_table", &["tbl=hive.db.mv"]);
    std::fs::remove_dir_all(&dir).unwrap();
}
