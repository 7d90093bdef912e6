//! The one table of the HMS methods hivestore implements: each by wire name, with the family
//! that serves it and the path its calls take. The dispatcher, the fast paths, the
//! `UNKNOWN_METHOD` answer for every other method and the method list in
//! `docs/compatibility.md` all follow this table; nothing else lists methods by hand.
//!
//! Adding a method: its `Handler` method in `service.rs` (forwarding to its family's module
//! under `calls/`) and its row here. A test holds the two together.

use std::collections::HashMap;
use std::sync::OnceLock;

use hivestore_idl::handler::{Method, METHODS};

use Family::*;
use Path::*;

/// The part of the API a method belongs to, as `calls/` groups them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Family {
    /// fb303: the server's name, status, counters and options.
    Fb303,
    /// The connection and the server's settings: `set_ugi`, `get_config_value`,
    /// `getMetaConf`, `setMetaConf`, `get_metastore_db_uuid`.
    Session,
    /// Functions.
    Functions,
    /// Hive's old type registry.
    Types,
    /// The schema registry: schemas, their versions, SerDes by name.
    SchemaRegistry,
    /// The file-metadata cache and `flushCache`, as Hive answers them without a cache.
    Caches,
    /// Catalogs.
    Catalogs,
    /// Databases.
    Databases,
    /// Tables.
    Tables,
    /// Table constraints.
    Constraints,
    /// Partitions, their listings, filters and specs.
    Partitions,
    /// Column statistics and basic statistics.
    Statistics,
    /// Locks.
    Locks,
    /// Transactions and write ids.
    Transactions,
    /// Compaction requests.
    Compactions,
    /// The notification log.
    Notifications,
}

impl Family {
    /// Every family, in the order the documentation lists them.
    pub const ALL: [Family; 16] = [
        Fb303,
        Session,
        Functions,
        Types,
        SchemaRegistry,
        Caches,
        Catalogs,
        Databases,
        Tables,
        Constraints,
        Partitions,
        Statistics,
        Locks,
        Transactions,
        Compactions,
        Notifications,
    ];

    /// The family's name in the documentation.
    pub fn title(self) -> &'static str {
        match self {
            Fb303 => "fb303",
            Session => "session and configuration",
            Functions => "functions",
            Types => "types",
            SchemaRegistry => "schema registry",
            Caches => "file-metadata cache",
            Catalogs => "catalogs",
            Databases => "databases",
            Tables => "tables",
            Constraints => "constraints",
            Partitions => "partitions",
            Statistics => "statistics",
            Locks => "locks",
            Transactions => "transactions and write ids",
            Compactions => "compactions",
            Notifications => "notification log",
        }
    }
}

/// How calls of a method are answered.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Path {
    /// Decoded into the IDL's structs by the generated processor and answered by the
    /// `Handler` in `service.rs`.
    Generic,
    /// Offered first to `direct`, which writes the reply from the store's archived values;
    /// what it declines takes the generic path.
    Fast,
    /// Like `Fast`, and an unframed binary call is read by `direct` as its bytes arrive,
    /// without the message walk before it: the biggest requests.
    Arriving,
}

/// One implemented method.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Implemented {
    /// The name in the Thrift message header.
    pub name: &'static str,
    /// The family that serves it.
    pub family: Family,
    /// The path its calls take.
    pub path: Path,
}

impl Implemented {
    /// Whether `direct` is offered its calls first.
    pub fn has_fast_path(&self) -> bool {
        matches!(self.path, Fast | Arriving)
    }

    /// Whether an unframed binary call is read as it arrives.
    pub fn is_read_arriving(&self) -> bool {
        self.path == Arriving
    }
}

const fn row(name: &'static str, family: Family, path: Path) -> Implemented {
    Implemented { name, family, path }
}

/// Every method hivestore implements, sorted by wire name. Every other method of the IDL, and
/// any name it does not know, answers `UNKNOWN_METHOD` whatever its arguments (Hive's client
/// takes that as an older metastore and falls back where it can).
pub const IMPLEMENTED: &[Implemented] = &[
    row("abort_Compactions", Compactions, Generic),
    row("abort_txn", Transactions, Generic),
    row("abort_txns", Transactions, Generic),
    row("add_check_constraint", Constraints, Generic),
    row("add_default_constraint", Constraints, Generic),
    row("add_dynamic_partitions", Transactions, Generic),
    row("add_foreign_key", Constraints, Generic),
    row("add_not_null_constraint", Constraints, Generic),
    row("add_partition", Partitions, Generic),
    row(
        "add_partition_with_environment_context",
        Partitions,
        Generic,
    ),
    row("add_partitions", Partitions, Arriving),
    row("add_partitions_pspec", Partitions, Generic),
    row("add_partitions_req", Partitions, Arriving),
    row("add_primary_key", Constraints, Generic),
    row("add_schema_version", SchemaRegistry, Generic),
    row("add_serde", SchemaRegistry, Generic),
    row("add_unique_constraint", Constraints, Generic),
    row("add_write_ids_to_min_history", Transactions, Generic),
    row("add_write_notification_log", Notifications, Generic),
    row(
        "add_write_notification_log_in_batch",
        Notifications,
        Generic,
    ),
    row("aliveSince", Fb303, Generic),
    row("allocate_table_write_ids", Transactions, Generic),
    row("alter_catalog", Catalogs, Generic),
    row("alter_database", Databases, Generic),
    row("alter_database_req", Databases, Generic),
    row("alter_function", Functions, Generic),
    row("alter_ischema", SchemaRegistry, Generic),
    row("alter_partition", Partitions, Generic),
    row(
        "alter_partition_with_environment_context",
        Partitions,
        Generic,
    ),
    row("alter_partitions", Partitions, Generic),
    row("alter_partitions_req", Partitions, Generic),
    row(
        "alter_partitions_with_environment_context",
        Partitions,
        Generic,
    ),
    row("alter_table", Tables, Generic),
    row("alter_table_req", Tables, Generic),
    row("alter_table_with_cascade", Tables, Generic),
    row("alter_table_with_environment_context", Tables, Generic),
    row("append_partition", Partitions, Generic),
    row("append_partition_by_name", Partitions, Generic),
    row(
        "append_partition_by_name_with_environment_context",
        Partitions,
        Generic,
    ),
    row("append_partition_req", Partitions, Generic),
    row(
        "append_partition_with_environment_context",
        Partitions,
        Generic,
    ),
    row("cache_file_metadata", Caches, Generic),
    row("check_lock", Locks, Generic),
    row("clear_file_metadata", Caches, Generic),
    row("commit_txn", Transactions, Generic),
    row("compact", Compactions, Generic),
    row("compact2", Compactions, Generic),
    row("create_catalog", Catalogs, Generic),
    row("create_database", Databases, Generic),
    row("create_database_req", Databases, Generic),
    row("create_function", Functions, Generic),
    row("create_ischema", SchemaRegistry, Generic),
    row("create_table", Tables, Generic),
    row("create_table_req", Tables, Generic),
    row("create_table_with_constraints", Constraints, Generic),
    row("create_table_with_environment_context", Tables, Generic),
    row("create_type", Types, Generic),
    row("delete_partition_column_statistics", Statistics, Generic),
    row("delete_table_column_statistics", Statistics, Generic),
    row("drop_catalog", Catalogs, Generic),
    row("drop_constraint", Constraints, Generic),
    row("drop_database", Databases, Generic),
    row("drop_database_req", Databases, Generic),
    row("drop_function", Functions, Generic),
    row("drop_ischema", SchemaRegistry, Generic),
    row("drop_partition", Partitions, Generic),
    row("drop_partition_by_name", Partitions, Generic),
    row(
        "drop_partition_by_name_with_environment_context",
        Partitions,
        Generic,
    ),
    row("drop_partition_req", Partitions, Generic),
    row(
        "drop_partition_with_environment_context",
        Partitions,
        Generic,
    ),
    row("drop_partitions_req", Partitions, Generic),
    row("drop_schema_version", SchemaRegistry, Generic),
    row("drop_table", Tables, Generic),
    row("drop_table_req", Tables, Generic),
    row("drop_table_with_environment_context", Tables, Generic),
    row("drop_type", Types, Generic),
    row("exchange_partition", Partitions, Generic),
    row("exchange_partitions", Partitions, Generic),
    row("fetch_partition_names_req", Partitions, Generic),
    row("fire_listener_event", Notifications, Generic),
    row("flushCache", Caches, Generic),
    row("getCounter", Fb303, Generic),
    row("getCounters", Fb303, Generic),
    row("getMetaConf", Session, Generic),
    row("getName", Fb303, Generic),
    row("getOption", Fb303, Generic),
    row("getOptions", Fb303, Generic),
    row("getStatus", Fb303, Generic),
    row("getStatusDetails", Fb303, Generic),
    row("getVersion", Fb303, Generic),
    row("get_aggr_stats_for", Statistics, Generic),
    row("get_all_databases", Databases, Generic),
    row("get_all_functions", Functions, Generic),
    row("get_all_table_constraints", Constraints, Generic),
    row("get_all_tables", Tables, Generic),
    row("get_all_write_event_info", Notifications, Generic),
    row("get_catalog", Catalogs, Generic),
    row("get_catalogs", Catalogs, Generic),
    row("get_check_constraints", Constraints, Generic),
    row("get_config_value", Session, Generic),
    row("get_current_notificationEventId", Notifications, Generic),
    row("get_database", Databases, Generic),
    row("get_database_req", Databases, Generic),
    row("get_databases", Databases, Generic),
    row("get_default_constraints", Constraints, Generic),
    row("get_fields", Tables, Generic),
    row("get_fields_req", Tables, Generic),
    row("get_fields_with_environment_context", Tables, Generic),
    row("get_file_metadata", Caches, Generic),
    row("get_file_metadata_by_expr", Caches, Generic),
    row("get_foreign_keys", Constraints, Generic),
    row("get_function", Functions, Generic),
    row("get_functions", Functions, Generic),
    row("get_functions_req", Functions, Generic),
    row("get_ischema", SchemaRegistry, Generic),
    row("get_latest_committed_compaction_info", Compactions, Generic),
    row("get_latest_txnid_in_conflict", Transactions, Generic),
    row("get_max_allocated_table_write_id", Transactions, Generic),
    row("get_metastore_db_uuid", Session, Generic),
    row("get_next_notification", Notifications, Generic),
    row("get_not_null_constraints", Constraints, Generic),
    row("get_notification_events_count", Notifications, Generic),
    row("get_num_partitions_by_filter", Partitions, Generic),
    row("get_open_txns", Transactions, Generic),
    row("get_open_txns_info", Transactions, Generic),
    row("get_open_txns_req", Transactions, Generic),
    row("get_part_specs_by_filter", Partitions, Generic),
    row("get_partition", Partitions, Generic),
    row("get_partition_by_name", Partitions, Generic),
    row("get_partition_column_statistics", Statistics, Generic),
    row("get_partition_names", Partitions, Fast),
    row("get_partition_names_ps", Partitions, Fast),
    row("get_partition_names_ps_req", Partitions, Generic),
    row("get_partition_names_req", Partitions, Generic),
    row("get_partition_req", Partitions, Generic),
    row("get_partition_values", Partitions, Generic),
    row("get_partition_with_auth", Partitions, Generic),
    row("get_partitions", Partitions, Fast),
    row("get_partitions_by_filter", Partitions, Fast),
    row("get_partitions_by_filter_req", Partitions, Generic),
    row("get_partitions_by_names", Partitions, Fast),
    row("get_partitions_by_names_req", Partitions, Fast),
    row("get_partitions_ps", Partitions, Fast),
    row("get_partitions_ps_with_auth", Partitions, Generic),
    row("get_partitions_ps_with_auth_req", Partitions, Generic),
    row("get_partitions_pspec", Partitions, Generic),
    row("get_partitions_req", Partitions, Fast),
    row("get_partitions_statistics_req", Statistics, Fast),
    row("get_partitions_with_auth", Partitions, Generic),
    row("get_partitions_with_specs", Partitions, Generic),
    row("get_primary_keys", Constraints, Generic),
    row("get_schema", Tables, Generic),
    row("get_schema_all_versions", SchemaRegistry, Generic),
    row("get_schema_latest_version", SchemaRegistry, Generic),
    row("get_schema_req", Tables, Generic),
    row("get_schema_version", SchemaRegistry, Generic),
    row("get_schema_with_environment_context", Tables, Generic),
    row("get_schemas_by_cols", SchemaRegistry, Generic),
    row("get_serde", SchemaRegistry, Generic),
    row("get_table", Tables, Fast),
    row("get_table_column_statistics", Statistics, Generic),
    row("get_table_meta", Tables, Generic),
    row("get_table_names_by_filter", Tables, Generic),
    row("get_table_objects_by_name", Tables, Generic),
    row("get_table_objects_by_name_req", Tables, Generic),
    row("get_table_req", Tables, Fast),
    row("get_table_statistics_req", Statistics, Generic),
    row("get_tables", Tables, Generic),
    row("get_tables_by_type", Tables, Generic),
    row("get_tables_ext", Tables, Generic),
    row("get_type", Types, Generic),
    row("get_type_all", Types, Generic),
    row("get_unique_constraints", Constraints, Generic),
    row("get_valid_write_ids", Transactions, Generic),
    row("heartbeat", Locks, Generic),
    row("heartbeat_txn_range", Transactions, Generic),
    row("isPartitionMarkedForEvent", Partitions, Generic),
    row("lock", Locks, Generic),
    row("map_schema_version_to_serde", SchemaRegistry, Generic),
    row("markPartitionForEvent", Partitions, Generic),
    row("open_txns", Transactions, Generic),
    row("partition_name_has_valid_characters", Partitions, Generic),
    row("partition_name_to_spec", Partitions, Generic),
    row("partition_name_to_vals", Partitions, Generic),
    row("put_file_metadata", Caches, Generic),
    row("reinitialize", Fb303, Generic),
    row("rename_partition", Partitions, Generic),
    row("rename_partition_req", Partitions, Generic),
    row("repl_tbl_writeid_state", Transactions, Generic),
    row("seed_txn_id", Transactions, Generic),
    row("seed_write_id", Transactions, Generic),
    row("setMetaConf", Session, Generic),
    row("setOption", Fb303, Generic),
    row("set_aggr_stats_for", Statistics, Generic),
    row("set_schema_version_state", SchemaRegistry, Generic),
    row("set_ugi", Session, Generic),
    row("show_compact", Compactions, Generic),
    row("show_locks", Locks, Generic),
    row("shutdown", Fb303, Generic),
    row("submit_for_cleanup", Compactions, Generic),
    row("translate_table_dryrun", Tables, Generic),
    row("truncate_table", Tables, Generic),
    row("truncate_table_req", Tables, Generic),
    row("unlock", Locks, Generic),
    row("update_creation_metadata", Tables, Generic),
    row("update_partition_column_statistics", Statistics, Generic),
    row(
        "update_partition_column_statistics_req",
        Statistics,
        Generic,
    ),
    row("update_table_column_statistics", Statistics, Generic),
    row("update_table_column_statistics_req", Statistics, Generic),
    row("update_transaction_statistics", Statistics, Generic),
];

/// The method of the IDL with wire name `name`, and its row when hivestore implements it: the
/// one index of methods, read once per call.
pub fn lookup(name: &str) -> Option<(&'static Method, Option<&'static Implemented>)> {
    type Index = HashMap<&'static str, (&'static Method, Option<&'static Implemented>)>;
    static INDEX: OnceLock<Index> = OnceLock::new();
    INDEX
        .get_or_init(|| {
            let rows: HashMap<_, _> = IMPLEMENTED.iter().map(|row| (row.name, row)).collect();
            METHODS
                .iter()
                .map(|method| (method.name, (method, rows.get(method.name).copied())))
                .collect()
        })
        .get(name)
        .copied()
}

/// The implemented method with wire name `name`, if any.
pub fn implemented(name: &str) -> Option<&'static Implemented> {
    lookup(name).and_then(|(_, row)| row)
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;
    use std::fmt::Write as _;

    use hivestore_idl::handler::METHODS;

    use super::*;

    /// The README's summary and `docs/compatibility.md`'s lists are written from the table
    /// between these markers; `HIVESTORE_BLESS=1 cargo test -p hivestore-thrift methods`
    /// rewrites them.
    type Render = fn() -> String;
    const GENERATED: [(&str, Render); 2] =
        [("README.md", summary), ("docs/compatibility.md", lists)];
    const BEGIN: &str =
        "<!-- methods: written from frontends/thrift/src/methods.rs by its tests -->";
    const END: &str = "<!-- end of methods -->";

    fn methods_of(family: Family) -> Vec<&'static Implemented> {
        IMPLEMENTED
            .iter()
            .filter(|row| row.family == family)
            .collect()
    }

    fn unimplemented() -> Vec<&'static str> {
        let mut names: Vec<_> = METHODS
            .iter()
            .map(|method| method.name)
            .filter(|name| implemented(name).is_none())
            .collect();
        names.sort_unstable();
        names
    }

    /// Per family, how many methods are implemented; then the total against the IDL.
    fn summary() -> String {
        let mut text = String::from("| family | methods implemented |\n|---|---|\n");
        for family in Family::ALL {
            let count = methods_of(family).len();
            let _ = writeln!(text, "| {} | {count} |", family.title());
        }
        let _ = writeln!(
            text,
            "| **all** | **{} of the {} methods of Hive 4's API and fb303**; the other {} answer \
             `UNKNOWN_METHOD` |",
            IMPLEMENTED.len(),
            METHODS.len(),
            unimplemented().len()
        );
        text
    }

    /// Every implemented method by family, fast paths marked; then every other method.
    fn lists() -> String {
        let mut text =
            String::from("| family | implemented methods (* with a fast path) |\n|---|---|\n");
        for family in Family::ALL {
            let names: Vec<String> = methods_of(family)
                .iter()
                .map(|row| {
                    let mark = if row.has_fast_path() { "*" } else { "" };
                    format!("`{}`{mark}", row.name)
                })
                .collect();
            let _ = writeln!(text, "| {} | {} |", family.title(), names.join(", "));
        }
        let others: Vec<String> = unimplemented()
            .iter()
            .map(|name| format!("`{name}`"))
            .collect();
        let _ = write!(
            text,
            "\nNot implemented, answered `UNKNOWN_METHOD` (`Invalid method name: '…'`) whatever \
             their arguments ({}): {}.\n",
            others.len(),
            others.join(", ")
        );
        text
    }

    #[test]
    fn the_docs_list_the_methods_as_the_table_has_them() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
        let bless = std::env::var_os("HIVESTORE_BLESS").is_some();
        for (file, render) in GENERATED {
            let path = root.join(file);
            let text = std::fs::read_to_string(&path).unwrap();
            let start = text
                .find(BEGIN)
                .unwrap_or_else(|| panic!("{file} lacks {BEGIN}"));
            let end = text
                .find(END)
                .unwrap_or_else(|| panic!("{file} lacks {END}"));
            let written = &text[start + BEGIN.len()..end];
            let wanted = format!("\n{}", render());
            if bless {
                let updated = format!("{}{wanted}{}", &text[..start + BEGIN.len()], &text[end..]);
                std::fs::write(&path, updated).unwrap();
            } else {
                assert_eq!(
                    written, wanted,
                    "{file} is out of date: HIVESTORE_BLESS=1 cargo test -p hivestore-thrift methods"
                );
            }
        }
    }

    #[test]
    fn the_table_is_sorted_and_every_row_is_in_the_idl() {
        assert!(IMPLEMENTED
            .windows(2)
            .all(|pair| pair[0].name < pair[1].name));
        for row in IMPLEMENTED {
            assert!(
                METHODS.iter().any(|method| method.name == row.name),
                "{} is not in the IDL",
                row.name
            );
            assert_eq!(implemented(row.name), Some(row));
        }
        assert_eq!(implemented("no_such_method"), None);
    }

    /// The rows and the `Handler` methods `service.rs` writes are the same methods: a row
    /// without its handler would answer `UNKNOWN_METHOD` after decoding, a handler without its
    /// row would never be called.
    #[test]
    fn every_row_has_its_handler_and_every_handler_its_row() {
        let source = include_str!("service.rs");
        let start = source
            .find("impl Handler for Session {")
            .expect("service.rs implements Handler");
        let end = source[start..]
            .find("\n}\n")
            .map_or(source.len(), |end| start + end);
        let written: BTreeSet<&str> = source[start..end]
            .lines()
            .filter_map(|line| line.strip_prefix("    fn "))
            .filter_map(|line| line.split('(').next())
            .filter(|name| *name != "observe")
            .collect();
        let rows: BTreeSet<&str> = IMPLEMENTED
            .iter()
            .map(|row| {
                METHODS
                    .iter()
                    .find(|method| method.name == row.name)
                    .map_or(row.name, |method| method.handler)
            })
            .collect();
        assert_eq!(
            rows.difference(&written).collect::<Vec<_>>(),
            Vec::<&&str>::new(),
            "rows without a Handler method in service.rs"
        );
        assert_eq!(
            written.difference(&rows).collect::<Vec<_>>(),
            Vec::<&&str>::new(),
            "Handler methods in service.rs without a row"
        );
    }
}
