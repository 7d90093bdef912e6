//! The one table of the HMS methods hivestore implements: each by wire name, with the family
//! that serves it and the path its calls take. The dispatcher, the fast paths, the
//! `UNKNOWN_METHOD` answer for every other method and the method list in
//! `docs/compatibility.md` all follow this table; nothing else lists methods by hand.
//!
//! Adding a method: the function that answers it, in its family's module under `calls/`, and
//! its row here.

use std::collections::HashMap;
use std::sync::OnceLock;

use hivestore_idl::handler::{Handler, Method, METHODS};

use crate::calls::{
    caches, catalogs, compactions, compactor, connectors, constraints, databases,
    delegation_tokens, fb303, functions, locks, materialized_views, notifications,
    partition_expressions, partition_listings, partition_specs, partitions, privileges, procedures,
    properties, replication, roles, runtime_stats, scheduled_queries, schema_registry, session,
    stats, table_translation, tables, txns, types, workload,
};

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
    /// The compactor's calls: workers, cleaner, initiator.
    Compactor,
    /// The notification log.
    Notifications,
    /// HPL/SQL's stored procedures and packages.
    Procedures,
    /// Data connectors.
    DataConnectors,
    /// Workload management: resource plans, pools, triggers, mappings.
    WorkloadManagement,
    /// What HiveServer2 keeps for its own query service: runtime statistics for
    /// re-executions, scheduled queries and their executions.
    QueryServices,
    /// Replication: its metrics and the change manager.
    Replication,
    /// Hive 4's property store: typed properties of the cluster, databases and tables.
    PropertyStore,
    /// Delegation tokens and Hive's token store with its master keys.
    DelegationTokens,
    /// Roles, their members, and privileges granted on objects.
    RolesAndPrivileges,
}

impl Family {
    /// Every family, in the order the documentation lists them.
    pub const ALL: [Family; 25] = [
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
        Compactor,
        Notifications,
        Procedures,
        DataConnectors,
        WorkloadManagement,
        QueryServices,
        Replication,
        PropertyStore,
        DelegationTokens,
        RolesAndPrivileges,
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
            Compactor => "compactor",
            Notifications => "notification log",
            Procedures => "stored procedures and packages",
            DataConnectors => "data connectors",
            WorkloadManagement => "workload management",
            QueryServices => "runtime statistics and scheduled queries",
            Replication => "replication",
            PropertyStore => "property store",
            DelegationTokens => "delegation tokens",
            RolesAndPrivileges => "roles and privileges",
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

/// Writes the table of implemented methods and the `Handler` of `Session` from one list. A
/// row names a method as `Handler` does, its family, its path, and the function under
/// `calls/` that answers it: that function takes the session and the method's arguments as
/// the IDL declares them, so a row can only name a function that fits.
macro_rules! methods {
    ($($handler:ident: $family:ident, $path:ident => $answer:path;)*) => {
        /// Every method hivestore implements, sorted by `Handler` name. Every other method of
        /// the IDL, and any name it does not know, answers `UNKNOWN_METHOD` whatever its
        /// arguments (Hive's client takes that as an older metastore and falls back where it
        /// can).
        pub const IMPLEMENTED: &[Implemented] = &[
            $(Implemented {
                name: hivestore_idl::wire_name!($handler),
                family: Family::$family,
                path: Path::$path,
            },)*
        ];

        impl Handler for crate::service::Session {
            $(hivestore_idl::forward_method!($handler, $answer);)*

            fn observe(&self, method: &'static str, failed: bool) {
                self.record_call(method, failed);
            }

            fn failed(&self, _method: &'static str, error: &thrift::Error) {
                self.keep_failure(error);
            }
        }
    };
}

methods! {
    abort_compactions: Compactions, Generic => compactions::abort;
    abort_txn: Transactions, Generic => txns::abort;
    abort_txns: Transactions, Generic => txns::abort_many;
    add_check_constraint: Constraints, Generic => constraints::add_check_constraint;
    add_default_constraint: Constraints, Generic => constraints::add_default_constraint;
    add_dynamic_partitions: Transactions, Generic => txns::add_dynamic_partitions;
    add_foreign_key: Constraints, Generic => constraints::add_foreign_key;
    add_master_key: DelegationTokens, Generic => delegation_tokens::add_master_key;
    add_not_null_constraint: Constraints, Generic => constraints::add_not_null_constraint;
    add_package: Procedures, Generic => procedures::add_package;
    add_partition: Partitions, Generic => partitions::add;
    add_partition_with_environment_context: Partitions, Generic => partitions::add_with_context;
    add_partitions: Partitions, Arriving => partitions::add_many;
    add_partitions_pspec: Partitions, Generic => partitions::add_pspec;
    add_partitions_req: Partitions, Arriving => partitions::add_req;
    add_primary_key: Constraints, Generic => constraints::add_primary_key;
    add_replication_metrics: Replication, Generic => replication::add_metrics;
    add_runtime_stats: QueryServices, Generic => runtime_stats::add;
    add_schema_version: SchemaRegistry, Generic => schema_registry::add_version;
    add_serde: SchemaRegistry, Generic => schema_registry::add_serde;
    add_token: DelegationTokens, Generic => delegation_tokens::add_token;
    add_unique_constraint: Constraints, Generic => constraints::add_unique_constraint;
    add_write_ids_to_min_history: Transactions, Generic => txns::add_min_history;
    add_write_notification_log: Notifications, Generic => notifications::add_write;
    add_write_notification_log_in_batch: Notifications, Generic => notifications::add_writes;
    alive_since: Fb303, Generic => fb303::alive_since;
    allocate_table_write_ids: Transactions, Generic => txns::allocate_write_ids;
    alter_catalog: Catalogs, Generic => catalogs::alter;
    alter_database: Databases, Generic => databases::alter;
    alter_database_req: Databases, Generic => databases::alter_req;
    alter_dataconnector: DataConnectors, Generic => connectors::alter;
    alter_dataconnector_req: DataConnectors, Generic => connectors::alter_req;
    alter_function: Functions, Generic => functions::alter;
    alter_ischema: SchemaRegistry, Generic => schema_registry::alter;
    alter_partition: Partitions, Generic => partitions::alter;
    alter_partition_with_environment_context: Partitions, Generic => partitions::alter_with_context;
    alter_partitions: Partitions, Generic => partitions::alter_many;
    alter_partitions_req: Partitions, Generic => partitions::alter_req;
    alter_partitions_with_environment_context: Partitions, Generic
        => partitions::alter_many_with_context;
    alter_resource_plan: WorkloadManagement, Generic => workload::alter_resource_plan;
    alter_table: Tables, Generic => tables::alter;
    alter_table_req: Tables, Generic => tables::alter_req;
    alter_table_with_cascade: Tables, Generic => tables::alter_with_cascade;
    alter_table_with_environment_context: Tables, Generic => tables::alter_with_context;
    alter_wm_pool: WorkloadManagement, Generic => workload::alter_wm_pool;
    alter_wm_trigger: WorkloadManagement, Generic => workload::alter_wm_trigger;
    append_partition: Partitions, Generic => partitions::append;
    append_partition_by_name: Partitions, Generic => partitions::append_by_name;
    append_partition_by_name_with_environment_context: Partitions, Generic
        => partitions::append_by_name_with_context;
    append_partition_req: Partitions, Generic => partitions::append_req;
    append_partition_with_environment_context: Partitions, Generic
        => partitions::append_with_context;
    cache_file_metadata: Caches, Generic => caches::cache;
    cancel_delegation_token: DelegationTokens, Generic => delegation_tokens::cancel;
    check_lock: Locks, Generic => locks::check;
    clear_file_metadata: Caches, Generic => caches::clear;
    cm_recycle: Replication, Generic => replication::cm_recycle;
    commit_txn: Transactions, Generic => txns::commit;
    compact: Compactions, Generic => compactions::compact;
    compact2: Compactions, Generic => compactions::compact2;
    create_catalog: Catalogs, Generic => catalogs::create;
    create_database: Databases, Generic => databases::create;
    create_database_req: Databases, Generic => databases::create_req;
    create_dataconnector: DataConnectors, Generic => connectors::create;
    create_dataconnector_req: DataConnectors, Generic => connectors::create_req;
    create_function: Functions, Generic => functions::create;
    create_ischema: SchemaRegistry, Generic => schema_registry::create;
    create_or_drop_wm_trigger_to_pool_mapping: WorkloadManagement, Generic
        => workload::create_or_drop_wm_trigger_to_pool_mapping;
    create_or_update_wm_mapping: WorkloadManagement, Generic
        => workload::create_or_update_wm_mapping;
    create_resource_plan: WorkloadManagement, Generic => workload::create_resource_plan;
    create_role: RolesAndPrivileges, Generic => roles::create;
    create_stored_procedure: Procedures, Generic => procedures::create_procedure;
    create_table: Tables, Generic => tables::create;
    create_table_req: Tables, Generic => tables::create_req;
    create_table_with_constraints: Constraints, Generic
        => constraints::create_table_with_constraints;
    create_table_with_environment_context: Tables, Generic => tables::create_with_context;
    create_type: Types, Generic => types::create;
    create_wm_pool: WorkloadManagement, Generic => workload::create_wm_pool;
    create_wm_trigger: WorkloadManagement, Generic => workload::create_wm_trigger;
    delete_partition_column_statistics: Statistics, Generic => stats::delete_partition;
    delete_table_column_statistics: Statistics, Generic => stats::delete_table;
    drop_catalog: Catalogs, Generic => catalogs::drop_one;
    drop_constraint: Constraints, Generic => constraints::drop;
    drop_database: Databases, Generic => databases::drop_one;
    drop_database_req: Databases, Generic => databases::drop_req;
    drop_dataconnector: DataConnectors, Generic => connectors::drop;
    drop_dataconnector_req: DataConnectors, Generic => connectors::drop_req;
    drop_function: Functions, Generic => functions::drop;
    drop_ischema: SchemaRegistry, Generic => schema_registry::drop;
    drop_package: Procedures, Generic => procedures::drop_package;
    drop_partition: Partitions, Generic => partitions::drop_values;
    drop_partition_by_name: Partitions, Generic => partitions::drop_by_name;
    drop_partition_by_name_with_environment_context: Partitions, Generic
        => partitions::drop_by_name_with_context;
    drop_partition_req: Partitions, Generic => partitions::drop_req;
    drop_partition_with_environment_context: Partitions, Generic
        => partitions::drop_values_with_context;
    drop_partitions_req: Partitions, Generic => partitions::drop_many_req;
    drop_resource_plan: WorkloadManagement, Generic => workload::drop_resource_plan;
    drop_role: RolesAndPrivileges, Generic => roles::drop;
    drop_schema_version: SchemaRegistry, Generic => schema_registry::drop_version;
    drop_stored_procedure: Procedures, Generic => procedures::drop_procedure;
    drop_table: Tables, Generic => tables::drop_one;
    drop_table_req: Tables, Generic => tables::drop_req;
    drop_table_with_environment_context: Tables, Generic => tables::drop_with_context;
    drop_type: Types, Generic => types::drop;
    drop_wm_mapping: WorkloadManagement, Generic => workload::drop_wm_mapping;
    drop_wm_pool: WorkloadManagement, Generic => workload::drop_wm_pool;
    drop_wm_trigger: WorkloadManagement, Generic => workload::drop_wm_trigger;
    exchange_partition: Partitions, Generic => partitions::exchange;
    exchange_partitions: Partitions, Generic => partitions::exchange_many;
    fetch_partition_names_req: Partitions, Generic => partition_listings::names_req;
    find_columns_with_stats: Compactor, Generic => compactor::columns_with_stats;
    find_next_compact: Compactor, Generic => compactor::find_next;
    find_next_compact2: Compactor, Generic => compactor::find_next2;
    find_package: Procedures, Generic => procedures::find_package;
    fire_listener_event: Notifications, Generic => notifications::fire;
    flush_cache: Caches, Generic => caches::flush;
    get_active_resource_plan: WorkloadManagement, Generic => workload::get_active_resource_plan;
    get_aggr_stats_for: Statistics, Generic => stats::get_aggr;
    get_all_databases: Databases, Generic => databases::list_all;
    get_all_functions: Functions, Generic => functions::all;
    get_all_materialized_view_objects_for_rewriting: Tables, Generic => materialized_views::all_for_rewriting;
    get_all_packages: Procedures, Generic => procedures::all_packages;
    get_all_resource_plans: WorkloadManagement, Generic => workload::get_all_resource_plans;
    get_all_stored_procedures: Procedures, Generic => procedures::all_procedures;
    get_all_table_constraints: Constraints, Generic => constraints::get_all;
    get_all_tables: Tables, Generic => tables::list_all;
    get_all_token_identifiers: DelegationTokens, Generic => delegation_tokens::all_token_identifiers;
    get_all_write_event_info: Notifications, Generic => notifications::write_infos;
    get_catalog: Catalogs, Generic => catalogs::get;
    get_catalogs: Catalogs, Generic => catalogs::list;
    get_check_constraints: Constraints, Generic => constraints::get_check_constraints;
    get_config_value: Session, Generic => session::config_value;
    get_counter: Fb303, Generic => fb303::counter;
    get_counters: Fb303, Generic => fb303::counters;
    get_cpu_profile: Fb303, Generic => fb303::cpu_profile;
    get_current_notification_event_id: Notifications, Generic => notifications::current;
    get_database: Databases, Generic => databases::get;
    get_database_req: Databases, Generic => databases::get_req;
    get_databases: Databases, Generic => databases::list_matching;
    get_dataconnector_req: DataConnectors, Generic => connectors::get_req;
    get_dataconnectors: DataConnectors, Generic => connectors::all;
    get_default_constraints: Constraints, Generic => constraints::get_default_constraints;
    get_delegation_token: DelegationTokens, Generic => delegation_tokens::get;
    get_fields: Tables, Generic => tables::fields;
    get_fields_req: Tables, Generic => tables::fields_req;
    get_fields_with_environment_context: Tables, Generic => tables::fields_with_context;
    get_file_metadata: Caches, Generic => caches::get;
    get_file_metadata_by_expr: Caches, Generic => caches::get_by_expr;
    get_foreign_keys: Constraints, Generic => constraints::get_foreign_keys;
    get_function: Functions, Generic => functions::get;
    get_functions: Functions, Generic => functions::list;
    get_functions_req: Functions, Generic => functions::list_req;
    get_ischema: SchemaRegistry, Generic => schema_registry::get;
    get_latest_committed_compaction_info: Compactions, Generic => compactions::latest_committed;
    get_latest_txnid_in_conflict: Transactions, Generic => txns::latest_in_conflict;
    get_lock_materialization_rebuild: Tables, Generic => materialized_views::lock_rebuild;
    get_master_keys: DelegationTokens, Generic => delegation_tokens::master_keys;
    get_materialization_invalidation_info: Tables, Generic => materialized_views::invalidation_info;
    get_materialized_views_for_rewriting: Tables, Generic => materialized_views::names_for_rewriting;
    get_max_allocated_table_write_id: Transactions, Generic => txns::max_allocated_write_id;
    get_meta_conf: Session, Generic => session::get_meta_conf;
    get_metastore_db_uuid: Session, Generic => session::metastore_db_uuid;
    get_name: Fb303, Generic => fb303::name;
    get_next_notification: Notifications, Generic => notifications::next;
    get_not_null_constraints: Constraints, Generic => constraints::get_not_null_constraints;
    get_notification_events_count: Notifications, Generic => notifications::count;
    get_num_partitions_by_filter: Partitions, Generic => partition_listings::count_by_filter;
    get_open_txns: Transactions, Generic => txns::list_open;
    get_open_txns_info: Transactions, Generic => txns::list_open_info;
    get_open_txns_req: Transactions, Generic => txns::list_open_req;
    get_option: Fb303, Generic => fb303::option;
    get_options: Fb303, Generic => fb303::options;
    get_part_specs_by_filter: Partitions, Generic => partition_listings::specs_by_filter;
    get_partition: Partitions, Generic => partitions::get;
    get_partition_by_name: Partitions, Generic => partitions::get_by_name;
    get_partition_column_statistics: Statistics, Generic => stats::get_partition_column;
    get_partition_names: Partitions, Fast => partition_listings::names;
    get_partition_names_ps: Partitions, Fast => partition_listings::names_ps;
    get_partition_names_ps_req: Partitions, Generic => partition_listings::names_ps_req;
    get_partition_names_req: Partitions, Generic => partition_expressions::names_by_expr;
    get_partition_req: Partitions, Generic => partitions::get_req;
    get_partition_values: Partitions, Generic => partitions::values;
    get_partition_with_auth: Partitions, Generic => partitions::get_with_auth;
    get_partitions: Partitions, Fast => partition_listings::get_all;
    get_partitions_by_expr: Partitions, Fast => partition_expressions::by_expr;
    get_partitions_by_filter: Partitions, Fast => partition_listings::by_filter;
    get_partitions_by_filter_req: Partitions, Generic => partition_listings::by_filter_req;
    get_partitions_by_names: Partitions, Fast => partition_listings::by_names;
    get_partitions_by_names_req: Partitions, Fast => partition_listings::by_names_req;
    get_partitions_ps: Partitions, Fast => partition_listings::get_ps;
    get_partitions_ps_with_auth: Partitions, Generic => partition_listings::get_ps_with_auth;
    get_partitions_ps_with_auth_req: Partitions, Generic => partition_listings::get_ps_req;
    get_partitions_pspec: Partitions, Generic => partition_listings::get_all_pspec;
    get_partitions_req: Partitions, Fast => partition_listings::get_all_req;
    get_partitions_spec_by_expr: Partitions, Generic => partition_expressions::specs_by_expr;
    get_partitions_statistics_req: Statistics, Fast => stats::get_partitions_req;
    get_partitions_with_auth: Partitions, Generic => partition_listings::get_all_with_auth;
    get_partitions_with_specs: Partitions, Generic => partition_specs::with_specs;
    get_primary_keys: Constraints, Generic => constraints::get_primary_keys;
    get_principals_in_role: RolesAndPrivileges, Generic => roles::principals_in_role;
    get_privilege_set: RolesAndPrivileges, Generic => privileges::privilege_set;
    get_properties: PropertyStore, Generic => properties::get;
    get_replication_metrics: Replication, Generic => replication::get_metrics;
    get_resource_plan: WorkloadManagement, Generic => workload::get_resource_plan;
    get_role_grants_for_principal: RolesAndPrivileges, Generic => roles::role_grants_for_principal;
    get_role_names: RolesAndPrivileges, Generic => roles::names;
    get_runtime_stats: QueryServices, Generic => runtime_stats::get;
    get_scheduled_query: QueryServices, Generic => scheduled_queries::get;
    get_schema: Tables, Generic => tables::schema;
    get_schema_all_versions: SchemaRegistry, Generic => schema_registry::all_versions;
    get_schema_latest_version: SchemaRegistry, Generic => schema_registry::latest_version;
    get_schema_req: Tables, Generic => tables::schema_req;
    get_schema_version: SchemaRegistry, Generic => schema_registry::get_version;
    get_schema_with_environment_context: Tables, Generic => tables::schema_with_context;
    get_schemas_by_cols: SchemaRegistry, Generic => schema_registry::by_columns;
    get_serde: SchemaRegistry, Generic => schema_registry::get_serde;
    get_status: Fb303, Generic => fb303::status;
    get_status_details: Fb303, Generic => fb303::status_details;
    get_stored_procedure: Procedures, Generic => procedures::get_procedure;
    get_table: Tables, Fast => tables::get;
    get_table_column_statistics: Statistics, Generic => stats::get_table_column;
    get_table_meta: Tables, Generic => tables::meta;
    get_table_names_by_filter: Tables, Generic => tables::names_by_filter;
    get_table_objects_by_name: Tables, Generic => tables::get_by_names;
    get_table_objects_by_name_req: Tables, Generic => tables::get_by_names_req;
    get_table_req: Tables, Fast => tables::get_req;
    get_table_statistics_req: Statistics, Generic => stats::get_table_req;
    get_tables: Tables, Generic => tables::list_matching;
    get_tables_by_type: Tables, Generic => tables::list_by_type;
    get_tables_ext: Tables, Generic => tables::list_ext;
    get_token: DelegationTokens, Generic => delegation_tokens::get_token;
    get_triggers_for_resourceplan: WorkloadManagement, Generic
        => workload::get_triggers_for_resourceplan;
    get_type: Types, Generic => types::get;
    get_type_all: Types, Generic => types::all;
    get_unique_constraints: Constraints, Generic => constraints::get_unique_constraints;
    get_valid_write_ids: Transactions, Generic => txns::valid_write_ids;
    get_version: Fb303, Generic => fb303::version;
    grant_privileges: RolesAndPrivileges, Generic => privileges::grant_privileges;
    grant_revoke_privileges: RolesAndPrivileges, Generic => privileges::grant_revoke;
    grant_revoke_role: RolesAndPrivileges, Generic => roles::grant_revoke;
    grant_role: RolesAndPrivileges, Generic => roles::grant;
    heartbeat: Locks, Generic => locks::heartbeat;
    heartbeat_lock_materialization_rebuild: Tables, Generic => materialized_views::heartbeat_rebuild;
    heartbeat_txn_range: Transactions, Generic => txns::heartbeat_range;
    is_partition_marked_for_event: Partitions, Generic => partitions::is_marked_for_event;
    list_privileges: RolesAndPrivileges, Generic => privileges::list;
    list_roles: RolesAndPrivileges, Generic => roles::list;
    lock: Locks, Generic => locks::lock;
    map_schema_version_to_serde: SchemaRegistry, Generic => schema_registry::map_to_serde;
    mark_cleaned: Compactor, Generic => compactor::mark_cleaned;
    mark_compacted: Compactor, Generic => compactor::mark_compacted;
    mark_failed: Compactor, Generic => compactor::mark_failed;
    mark_partition_for_event: Partitions, Generic => partitions::mark_for_event;
    mark_refused: Compactor, Generic => compactor::mark_refused;
    open_txns: Transactions, Generic => txns::open;
    partition_name_has_valid_characters: Partitions, Generic => partitions::has_valid_characters;
    partition_name_to_spec: Partitions, Generic => partitions::name_to_spec;
    partition_name_to_vals: Partitions, Generic => partitions::name_to_values;
    put_file_metadata: Caches, Generic => caches::put;
    refresh_privileges: RolesAndPrivileges, Generic => privileges::refresh;
    reinitialize: Fb303, Generic => fb303::reinitialize;
    remove_compaction_metrics_data: Compactor, Generic => compactor::remove_metrics;
    remove_master_key: DelegationTokens, Generic => delegation_tokens::remove_master_key;
    remove_token: DelegationTokens, Generic => delegation_tokens::remove_token;
    rename_partition: Partitions, Generic => partitions::rename;
    rename_partition_req: Partitions, Generic => partitions::rename_req;
    renew_delegation_token: DelegationTokens, Generic => delegation_tokens::renew;
    repl_tbl_writeid_state: Transactions, Generic => txns::repl_write_id_state;
    revoke_privileges: RolesAndPrivileges, Generic => privileges::revoke_privileges;
    revoke_role: RolesAndPrivileges, Generic => roles::revoke;
    scheduled_query_maintenance: QueryServices, Generic => scheduled_queries::maintenance;
    scheduled_query_poll: QueryServices, Generic => scheduled_queries::poll;
    scheduled_query_progress: QueryServices, Generic => scheduled_queries::progress;
    seed_txn_id: Transactions, Generic => txns::seed_txn_id;
    seed_write_id: Transactions, Generic => txns::seed_write_id;
    set_aggr_stats_for: Statistics, Generic => stats::set_aggr;
    set_hadoop_jobid: Compactor, Generic => compactor::set_job_id;
    set_meta_conf: Session, Generic => session::set_meta_conf;
    set_option: Fb303, Generic => fb303::set_option;
    set_properties: PropertyStore, Generic => properties::set;
    set_schema_version_state: SchemaRegistry, Generic => schema_registry::set_state;
    set_ugi: Session, Generic => session::set_ugi;
    show_compact: Compactions, Generic => compactions::show;
    show_locks: Locks, Generic => locks::show;
    shutdown: Fb303, Generic => fb303::shutdown;
    submit_for_cleanup: Compactions, Generic => compactions::submit_for_cleanup;
    translate_table_dryrun: Tables, Generic => table_translation::translate;
    truncate_table: Tables, Generic => tables::truncate;
    truncate_table_req: Tables, Generic => tables::truncate_req;
    unlock: Locks, Generic => locks::unlock;
    update_compaction_metrics_data: Compactor, Generic => compactor::update_metrics;
    update_compactor_state: Compactor, Generic => compactor::update_state;
    update_creation_metadata: Tables, Generic => tables::update_creation_metadata;
    update_master_key: DelegationTokens, Generic => delegation_tokens::update_master_key;
    update_partition_column_statistics: Statistics, Generic => stats::update_partition;
    update_partition_column_statistics_req: Statistics, Generic => stats::update_partition_req;
    update_table_column_statistics: Statistics, Generic => stats::update_table;
    update_table_column_statistics_req: Statistics, Generic => stats::update_table_req;
    update_transaction_statistics: Statistics, Generic => stats::update_transaction;
    validate_resource_plan: WorkloadManagement, Generic => workload::validate_resource_plan;
}

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
        let handler = |row: &Implemented| {
            METHODS
                .iter()
                .find(|method| method.name == row.name)
                .map(|method| method.handler)
        };
        for pair in IMPLEMENTED.windows(2) {
            assert!(
                handler(&pair[0]) < handler(&pair[1]),
                "{} is out of order",
                pair[1].name
            );
        }
        for row in IMPLEMENTED {
            assert!(handler(row).is_some(), "{} is not in the IDL", row.name);
            assert_eq!(implemented(row.name), Some(row));
        }
        assert_eq!(implemented("no_such_method"), None);
    }
}
