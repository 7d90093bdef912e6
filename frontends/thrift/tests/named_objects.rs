//! What the calls of the session, fb303, function, type, schema registry, cache, catalog,
//! database, constraint, procedure, connector, workload, query service, replication, property
//! store and delegation token families name through `Session::authorize`. Goal: every
//! implemented method of those families is in the table below, which says what it names (or
//! why it names nothing); a representative call of most of them names exactly that object,
//! after its names are normalised (catalog resolved, `@cat#db` read, trimmed, lower-cased),
//! whether or not the object exists.

use std::collections::BTreeSet;
use std::sync::Arc;

use hivestore_engine::kv::MemoryBackend;
use hivestore_engine::{Durability, Store, StoreOptions};
use hivestore_idl::hive_metastore as idl;
use hivestore_thrift::calls::{
    caches, catalogs, connectors, constraints, databases, delegation_tokens, fb303, functions,
    procedures, properties, replication, runtime_stats, scheduled_queries, schema_registry,
    session, types, workload,
};
use hivestore_thrift::methods::{Family, IMPLEMENTED};
use hivestore_thrift::service::{ServerState, Session};

/// The kind of object a method names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Names {
    /// The server (settings, listings of everything, administration).
    Server,
    /// A catalog.
    Catalog,
    /// A database.
    Database,
    /// A database, or the catalog when the call names no database.
    DatabaseOrCatalog,
    /// A function.
    Function,
    /// A table (or each table, for constraints over several).
    Table,
    /// The tables a foreign key read selects by, or their databases, or the server.
    ForeignKeySides,
    /// Nothing, for the reason given.
    Nothing(&'static str),
}

use Names::*;

/// The families whose calls this branch names.
const FAMILIES: &[Family] = &[
    Family::Fb303,
    Family::Session,
    Family::Functions,
    Family::Types,
    Family::SchemaRegistry,
    Family::Caches,
    Family::Catalogs,
    Family::Databases,
    Family::Constraints,
    Family::Procedures,
    Family::DataConnectors,
    Family::WorkloadManagement,
    Family::QueryServices,
    Family::Replication,
    Family::PropertyStore,
    Family::DelegationTokens,
];

/// Every implemented method of `FAMILIES`, by wire name, and what it names.
const NAMED: &[(&str, Names)] = &[
    ("add_check_constraint", Table),
    ("add_default_constraint", Table),
    ("add_foreign_key", Table),
    ("add_master_key", Server),
    ("add_not_null_constraint", Table),
    ("add_package", DatabaseOrCatalog),
    ("add_primary_key", Table),
    ("add_replication_metrics", Server),
    ("add_runtime_stats", Server),
    ("add_schema_version", Database),
    ("add_serde", Server),
    ("add_token", Server),
    ("add_unique_constraint", Table),
    ("aliveSince", Server),
    ("alter_catalog", Catalog),
    ("alter_database", Database),
    ("alter_database_req", Database),
    ("alter_dataconnector", Server),
    ("alter_dataconnector_req", Server),
    ("alter_function", Function),
    ("alter_ischema", Database),
    ("alter_resource_plan", Server),
    ("alter_wm_pool", Server),
    ("alter_wm_trigger", Server),
    ("cache_file_metadata", Server),
    ("cancel_delegation_token", Server),
    ("clear_file_metadata", Server),
    ("cm_recycle", Server),
    ("create_catalog", Catalog),
    ("create_database", Server),
    ("create_database_req", Server),
    ("create_dataconnector", Server),
    ("create_dataconnector_req", Server),
    ("create_function", Database),
    ("create_ischema", Database),
    ("create_or_drop_wm_trigger_to_pool_mapping", Server),
    ("create_or_update_wm_mapping", Server),
    ("create_resource_plan", Server),
    ("create_stored_procedure", DatabaseOrCatalog),
    ("create_table_with_constraints", Database),
    ("create_type", Server),
    ("create_wm_pool", Server),
    ("create_wm_trigger", Server),
    ("drop_catalog", Catalog),
    ("drop_constraint", Table),
    ("drop_database", Database),
    ("drop_database_req", Database),
    ("drop_dataconnector", Server),
    ("drop_dataconnector_req", Server),
    ("drop_function", Function),
    ("drop_ischema", Database),
    ("drop_package", Database),
    ("drop_resource_plan", Server),
    ("drop_schema_version", Database),
    ("drop_stored_procedure", Database),
    ("drop_type", Server),
    ("drop_wm_mapping", Server),
    ("drop_wm_pool", Server),
    ("drop_wm_trigger", Server),
    ("find_package", Database),
    ("flushCache", Server),
    ("get_active_resource_plan", Server),
    ("get_all_databases", Server),
    ("get_all_functions", Server),
    ("get_all_packages", DatabaseOrCatalog),
    ("get_all_resource_plans", Server),
    ("get_all_stored_procedures", DatabaseOrCatalog),
    ("get_all_table_constraints", Table),
    ("get_all_token_identifiers", Server),
    ("get_catalog", Catalog),
    ("get_catalogs", Server),
    ("get_check_constraints", Table),
    ("get_config_value", Server),
    ("getCounter", Server),
    ("getCounters", Server),
    ("getCpuProfile", Server),
    ("get_database", Database),
    ("get_database_req", Database),
    ("get_databases", Server),
    ("get_dataconnector_req", Server),
    ("get_dataconnectors", Server),
    ("get_default_constraints", Table),
    ("get_delegation_token", Server),
    ("get_file_metadata", Server),
    ("get_file_metadata_by_expr", Server),
    ("get_foreign_keys", ForeignKeySides),
    ("get_function", Function),
    ("get_functions", Database),
    ("get_functions_req", Database),
    ("get_ischema", Database),
    ("get_master_keys", Server),
    ("getMetaConf", Server),
    ("get_metastore_db_uuid", Server),
    ("getName", Server),
    ("get_not_null_constraints", Table),
    ("getOption", Server),
    ("getOptions", Server),
    ("get_primary_keys", Table),
    ("get_properties", Server),
    ("get_replication_metrics", Server),
    ("get_resource_plan", Server),
    ("get_runtime_stats", Server),
    ("get_scheduled_query", Server),
    ("get_schema_all_versions", Database),
    ("get_schema_latest_version", Database),
    ("get_schema_version", Database),
    ("get_schemas_by_cols", Server),
    ("get_serde", Server),
    ("getStatus", Server),
    ("getStatusDetails", Server),
    ("get_stored_procedure", Database),
    ("get_token", Server),
    ("get_triggers_for_resourceplan", Server),
    ("get_type", Server),
    ("get_type_all", Server),
    ("get_unique_constraints", Table),
    ("getVersion", Server),
    ("map_schema_version_to_serde", Database),
    ("put_file_metadata", Server),
    ("reinitialize", Server),
    ("remove_master_key", Server),
    ("remove_token", Server),
    ("renew_delegation_token", Server),
    ("scheduled_query_maintenance", Server),
    ("scheduled_query_poll", Server),
    ("scheduled_query_progress", Server),
    ("setMetaConf", Server),
    ("setOption", Server),
    ("set_properties", Server),
    ("set_schema_version_state", Database),
    (
        "set_ugi",
        Nothing("names the caller, not an object: impersonation is decided apart"),
    ),
    ("shutdown", Server),
    ("update_master_key", Server),
    ("validate_resource_plan", Server),
];

fn state() -> Arc<ServerState> {
    let mut options = StoreOptions::new("s3a://bucket/warehouse".to_string());
    options.durability = Durability::Memory;
    let store = Store::open_with_backend(Arc::new(MemoryBackend::new()), options).unwrap();
    Arc::new(ServerState::new(store))
}

#[test]
fn every_method_of_these_families_says_what_it_names() {
    let implemented: BTreeSet<&str> = IMPLEMENTED
        .iter()
        .filter(|row| FAMILIES.contains(&row.family))
        .map(|row| row.name)
        .collect();
    let tabled: BTreeSet<&str> = NAMED.iter().map(|(name, _)| *name).collect();
    assert_eq!(tabled.len(), NAMED.len(), "a method is in the table twice");
    let untabled: Vec<_> = implemented.difference(&tabled).collect();
    let gone: Vec<_> = tabled.difference(&implemented).collect();
    assert!(
        untabled.is_empty(),
        "implemented, not in the table: {untabled:?}"
    );
    assert!(
        gone.is_empty(),
        "in the table, not implemented here: {gone:?}"
    );
}

/// The prefix of the audit text of an object of `names`, for the check of a call's targets.
fn prefixes(names: Names) -> &'static [&'static str] {
    match names {
        Server => &["server"],
        Catalog => &["cat="],
        Database => &["db="],
        DatabaseOrCatalog => &["db=", "cat="],
        Function => &["function="],
        Table => &["tbl="],
        ForeignKeySides => &["tbl=", "db=", "server"],
        Nothing(_) => &[],
    }
}

/// Runs `call` on a fresh session and checks it named exactly `expected` (its result, success
/// or an exception because the object is not there, does not matter), and that the kind of
/// each object is the one the table gives `method`.
fn check(
    session: &Session,
    method: &str,
    expected: &[&str],
    call: impl FnOnce(&Session) -> thrift::Result<()>,
) {
    let _ = session.take_targets();
    let _ = call(session);
    let targets = session.take_targets();
    assert_eq!(targets.named, expected, "{method}");
    assert_eq!(targets.omitted, 0, "{method}");
    let names = NAMED
        .iter()
        .find(|(name, _)| *name == method)
        .unwrap_or_else(|| panic!("{method} is not in the table"))
        .1;
    for target in &targets.named {
        assert!(
            prefixes(names)
                .iter()
                .any(|prefix| target.starts_with(prefix)),
            "{method} named {target}, the table says {names:?}"
        );
    }
}

fn ok<T>(result: thrift::Result<T>) -> thrift::Result<()> {
    result.map(|_| ())
}

fn function(database: &str, name: &str) -> idl::Function {
    idl::Function {
        function_name: Some(name.to_string()),
        db_name: Some(database.to_string()),
        class_name: Some("org.example.Udf".to_string()),
        owner_name: Some("alice".to_string()),
        owner_type: Some(idl::PrincipalType::USER),
        create_time: Some(0),
        function_type: Some(idl::FunctionType::JAVA),
        resource_uris: Some(Vec::new()),
        cat_name: None,
    }
}

fn primary_key(database: &str, table: &str, column: &str, seq: i32) -> idl::SQLPrimaryKey {
    idl::SQLPrimaryKey {
        table_db: Some(database.to_string()),
        table_name: Some(table.to_string()),
        column_name: Some(column.to_string()),
        key_seq: Some(seq),
        pk_name: Some("pk".to_string()),
        enable_cstr: Some(false),
        validate_cstr: Some(false),
        rely_cstr: Some(false),
        cat_name: None,
    }
}

/// A foreign key read by the names given; the others left out, as Java clients leave them.
fn foreign_keys(
    parent_db: Option<&str>,
    parent_table: Option<&str>,
    foreign_db: Option<&str>,
    foreign_table: Option<&str>,
) -> idl::ForeignKeysRequest {
    idl::ForeignKeysRequest {
        parent_db_name: parent_db.map(str::to_string),
        parent_tbl_name: parent_table.map(str::to_string),
        foreign_db_name: foreign_db.map(str::to_string),
        foreign_tbl_name: foreign_table.map(str::to_string),
        cat_name: None,
        valid_write_id_list: None,
        table_id: None,
    }
}

#[test]
fn server_families_name_the_server() {
    let state = state();
    let s = Session::new(state, "127.0.0.1:1".parse().unwrap());
    let server = &["server"];
    check(&s, "getName", server, |s| ok(fb303::name(s)));
    check(&s, "setOption", server, |s| {
        fb303::set_option(s, "k".into(), "v".into())
    });
    check(&s, "reinitialize", server, fb303::reinitialize);
    check(&s, "shutdown", server, fb303::shutdown);
    check(&s, "get_config_value", server, |s| {
        ok(session::config_value(
            s,
            "hive.metastore.x".into(),
            "d".into(),
        ))
    });
    check(&s, "setMetaConf", server, |s| {
        session::set_meta_conf(s, "metastore.try.direct.sql".into(), "true".into())
    });
    check(&s, "get_metastore_db_uuid", server, |s| {
        ok(session::metastore_db_uuid(s))
    });
    check(&s, "create_type", server, |s| {
        let typedef = idl::Type {
            name: Some("point".into()),
            ..Default::default()
        };
        ok(types::create(s, typedef))
    });
    check(&s, "get_type", server, |s| {
        ok(types::get(s, "point".into()))
    });
    check(&s, "flushCache", server, caches::flush);
    check(&s, "get_file_metadata", server, |s| {
        ok(caches::get(s, idl::GetFileMetadataRequest::new(vec![1])))
    });
    check(&s, "get_catalogs", server, |s| ok(catalogs::list(s)));
    check(&s, "get_all_databases", server, |s| {
        ok(databases::list_all(s))
    });
    check(&s, "get_databases", server, |s| {
        ok(databases::list_matching(s, "@hive#sa*".into()))
    });
    check(&s, "get_all_functions", server, |s| ok(functions::all(s)));
    check(&s, "get_dataconnectors", server, |s| ok(connectors::all(s)));
    check(&s, "get_all_resource_plans", server, |s| {
        ok(workload::get_all_resource_plans(
            s,
            idl::WMGetAllResourcePlanRequest::default(),
        ))
    });
    check(&s, "get_runtime_stats", server, |s| {
        ok(runtime_stats::get(
            s,
            idl::GetRuntimeStatsRequest::new(10, -1),
        ))
    });
    check(&s, "get_scheduled_query", server, |s| {
        let key = idl::ScheduledQueryKey::new("q".into(), "ns".into());
        ok(scheduled_queries::get(s, key))
    });
    check(&s, "get_properties", server, |s| {
        let request = idl::PropertyGetRequest::new("ns".into(), None, None, None);
        ok(properties::get(s, request))
    });
    check(&s, "get_replication_metrics", server, |s| {
        let request = idl::GetReplicationMetricsRequest {
            policy: Some("p".into()),
            ..Default::default()
        };
        ok(replication::get_metrics(s, request))
    });
    check(&s, "get_all_token_identifiers", server, |s| {
        ok(delegation_tokens::all_token_identifiers(s))
    });
    check(&s, "get_delegation_token", server, |s| {
        ok(delegation_tokens::get(s, "alice".into(), "hive".into()))
    });
    check(&s, "add_serde", server, |s| {
        let serde = idl::SerDeInfo {
            name: Some("json".into()),
            ..Default::default()
        };
        schema_registry::add_serde(s, serde)
    });
    check(&s, "create_database", server, |s| {
        let database = idl::Database {
            name: Some("Sales".into()),
            ..Default::default()
        };
        databases::create(s, database)
    });
}

#[test]
fn catalog_database_and_function_calls_name_their_object_normalised() {
    let state = state();
    let s = Session::new(state, "127.0.0.1:1".parse().unwrap());
    check(&s, "create_catalog", &["cat=spark"], |s| {
        let catalog = idl::Catalog {
            name: Some(" Spark".into()),
            location_uri: Some("file:/tmp/spark".into()),
            ..Default::default()
        };
        catalogs::create(s, idl::CreateCatalogRequest::new(catalog))
    });
    check(&s, "get_catalog", &["cat=spark"], |s| {
        ok(catalogs::get(
            s,
            idl::GetCatalogRequest::new("SPARK".to_string()),
        ))
    });
    check(&s, "get_database", &["db=spark.sales"], |s| {
        ok(databases::get(s, "@Spark#Sales".into()))
    });
    check(&s, "get_database_req", &["db=hive.sales"], |s| {
        let request = idl::GetDatabaseRequest {
            name: Some("sales".into()),
            ..Default::default()
        };
        ok(databases::get_req(s, request))
    });
    check(&s, "alter_database", &["db=hive.sales"], |s| {
        databases::alter(s, "Sales".into(), idl::Database::default())
    });
    check(&s, "drop_database", &["db=hive.sales"], |s| {
        databases::drop_one(s, "SALES".into(), false, false)
    });
    check(&s, "create_function", &["db=hive.sales"], |s| {
        functions::create(s, function("Sales", "f"))
    });
    check(&s, "get_function", &["function=hive.sales.f"], |s| {
        ok(functions::get(s, "@hive#Sales".into(), "F".into()))
    });
    check(&s, "get_functions", &["db=hive.sales"], |s| {
        ok(functions::list(s, "sales".into(), "*".into()))
    });
    check(&s, "alter_function", &["function=hive.sales.f"], |s| {
        functions::alter(s, "sales".into(), "f".into(), function("sales", "f"))
    });
    check(&s, "drop_function", &["function=hive.sales.f"], |s| {
        functions::drop(s, "Sales".into(), "f".into())
    });
    check(&s, "drop_catalog", &["cat=spark"], |s| {
        catalogs::drop_one(s, idl::DropCatalogRequest::new("spark".to_string(), None))
    });
}

#[test]
fn constraint_procedure_and_schema_calls_name_their_table_or_database() {
    let state = state();
    let s = Session::new(state, "127.0.0.1:1".parse().unwrap());
    check(&s, "add_primary_key", &["tbl=hive.sales.t"], |s| {
        let columns = vec![
            primary_key("Sales", "T", "a", 1),
            primary_key("sales", "t", "b", 2),
        ];
        constraints::add_primary_key(s, idl::AddPrimaryKeyRequest::new(columns))
    });
    check(&s, "get_primary_keys", &["tbl=hive.sales.t"], |s| {
        let request = idl::PrimaryKeysRequest::new("Sales".into(), "T".into(), None, None, None);
        ok(constraints::get_primary_keys(s, request))
    });
    check(
        &s,
        "get_all_table_constraints",
        &["tbl=hive.sales.t"],
        |s| {
            let request = idl::AllTableConstraintsRequest::new(
                "sales".into(),
                "t".into(),
                "hive".into(),
                None,
                None,
            );
            ok(constraints::get_all(s, request))
        },
    );
    check(
        &s,
        "get_foreign_keys",
        &["tbl=hive.sales.parent", "db=hive.sales"],
        |s| {
            let request = foreign_keys(Some("sales"), Some("Parent"), Some("sales"), None);
            ok(constraints::get_foreign_keys(s, request))
        },
    );
    check(&s, "get_foreign_keys", &["server"], |s| {
        let request = foreign_keys(None, None, None, None);
        ok(constraints::get_foreign_keys(s, request))
    });
    check(&s, "drop_constraint", &["tbl=hive.sales.t"], |s| {
        let request =
            idl::DropConstraintRequest::new("sales".into(), "T".into(), "pk".into(), None);
        constraints::drop(s, request)
    });
    check(
        &s,
        "create_table_with_constraints",
        &["db=hive.sales"],
        |s| {
            let table = idl::Table {
                table_name: Some("t".into()),
                db_name: Some("Sales".into()),
                ..Default::default()
            };
            constraints::create_table_with_constraints(
                s,
                table,
                Vec::new(),
                Vec::new(),
                Vec::new(),
                Vec::new(),
                Vec::new(),
                Vec::new(),
            )
        },
    );
    check(&s, "get_all_stored_procedures", &["cat=hive"], |s| {
        let request = idl::ListStoredProcedureRequest::new("hive".into(), None);
        ok(procedures::all_procedures(s, request))
    });
    check(&s, "create_stored_procedure", &["db=hive.sales"], |s| {
        let procedure = idl::StoredProcedure {
            name: Some("p".into()),
            db_name: Some("Sales".into()),
            cat_name: Some("hive".into()),
            owner_name: Some("alice".into()),
            source: Some("BEGIN END".into()),
        };
        procedures::create_procedure(s, procedure)
    });
    check(&s, "create_ischema", &["db=hive.sales"], |s| {
        let schema = idl::ISchema {
            schema_type: Some(idl::SchemaType::AVRO),
            name: Some("events".into()),
            db_name: Some("Sales".into()),
            compatibility: Some(idl::SchemaCompatibility::BACKWARD),
            validation_level: Some(idl::SchemaValidation::ALL),
            ..Default::default()
        };
        schema_registry::create(s, schema)
    });
    check(&s, "get_ischema", &["db=hive.sales"], |s| {
        let name = idl::ISchemaName {
            cat_name: Some("HIVE".into()),
            db_name: Some("sales".into()),
            schema_name: Some("events".into()),
        };
        ok(schema_registry::get(s, name))
    });
}
