//! Errors answered on the fast path are the bytes the generated processor writes for them, and
//! so is every reply of `add_partitions(_req)`, which acts before it replies, and of
//! `get_partitions_by_expr`, whose expressions this file's tests take from Hive's serialiser.

use std::sync::Arc;

use hivestore_engine as engine;
use hivestore_idl::handler::Adapter;
use hivestore_idl::hive_metastore::{
    self as idl, GetPartitionsByNamesRequest, GetTableRequest, PartitionsRequest,
    ThriftHiveMetastoreAddPartitionsArgs, ThriftHiveMetastoreAddPartitionsReqArgs,
    ThriftHiveMetastoreSyncProcessor,
};
use thrift::protocol::{
    TFieldIdentifier, TInputProtocol, TListIdentifier, TMessageIdentifier, TMessageType,
    TOutputProtocol, TSerializable, TStructIdentifier, TType,
};
use thrift::server::TProcessor;

use super::stats_tests::{input, output};
use super::{answer, Answer};
use crate::detect::Protocol;
use crate::methods::implemented;
use crate::service::{ServerState, Session};

const PROTOCOLS: [Protocol; 2] = [Protocol::Binary, Protocol::Compact];

/// One argument of a call.
enum Arg<'a> {
    Text(&'a str),
    Texts(&'a [&'a str]),
    I16(i16),
    Struct(&'a dyn Fn(&mut dyn TOutputProtocol)),
}

/// A call of `method` with arguments 1, 2, ... as given.
fn call(method: &str, protocol: Protocol, arguments: &[Arg<'_>]) -> Vec<u8> {
    let mut message = Vec::new();
    let mut writer = output(protocol, &mut message);
    let o = &mut *writer;
    o.write_message_begin(&TMessageIdentifier::new(method, TMessageType::Call, 9))
        .unwrap();
    o.write_struct_begin(&TStructIdentifier::new("args"))
        .unwrap();
    for (id, argument) in (1..).zip(arguments) {
        let field_type = match argument {
            Arg::Text(_) => TType::String,
            Arg::Texts(_) => TType::List,
            Arg::I16(_) => TType::I16,
            Arg::Struct(_) => TType::Struct,
        };
        o.write_field_begin(&TFieldIdentifier::new("a", field_type, id))
            .unwrap();
        match argument {
            Arg::Text(text) => o.write_string(text).unwrap(),
            Arg::Texts(texts) => {
                let size = i32::try_from(texts.len()).unwrap();
                o.write_list_begin(&TListIdentifier::new(TType::String, size))
                    .unwrap();
                for text in *texts {
                    o.write_string(text).unwrap();
                }
                o.write_list_end().unwrap();
            }
            Arg::I16(value) => o.write_i16(*value).unwrap(),
            Arg::Struct(write) => write(o),
        }
        o.write_field_end().unwrap();
    }
    o.write_field_stop().unwrap();
    o.write_struct_end().unwrap();
    o.write_message_end().unwrap();
    drop(writer);
    message
}

/// What the fast path said and wrote, and what the generated processor writes.
fn both_replies(
    state: &Arc<ServerState>,
    message: &[u8],
    protocol: Protocol,
) -> (Answer, Vec<u8>, Vec<u8>) {
    let (said, fast) = fast_reply(state, message, protocol);
    (said, fast, generated_reply(state, message, protocol))
}

fn session(state: &Arc<ServerState>) -> Session {
    Session::new(Arc::clone(state), "127.0.0.1:9083".parse().unwrap())
}

/// What the fast path said and wrote.
fn fast_reply(state: &Arc<ServerState>, message: &[u8], protocol: Protocol) -> (Answer, Vec<u8>) {
    let mut arguments = input(protocol, message);
    let header = arguments.read_message_begin().unwrap();
    let method = implemented(&header.name).unwrap().name;
    let mut fast = Vec::new();
    let said = answer(
        method,
        header.sequence_number,
        message,
        &mut *arguments,
        protocol,
        &mut fast,
        &session(state),
    )
    .unwrap();
    (said, fast)
}

/// What the generated processor writes.
fn generated_reply(state: &Arc<ServerState>, message: &[u8], protocol: Protocol) -> Vec<u8> {
    let processor = ThriftHiveMetastoreSyncProcessor::new(Adapter(Arc::new(session(state))));
    let mut generated = Vec::new();
    processor
        .process(
            &mut *input(protocol, message),
            &mut *output(protocol, &mut generated),
        )
        .unwrap();
    generated
}

/// A store with database `db` and table `db.t` partitioned by `ds string`, `hr int`, with one
/// partition.
fn state() -> Arc<ServerState> {
    let store = super::memory_store_with_db();
    let field = |name: &str, type_name: &str| engine::FieldSchema {
        name: name.into(),
        type_name: type_name.into(),
        comment: None,
    };
    store
        .create_table(engine::Table {
            table_name: "t".into(),
            db_name: "db".into(),
            cat_name: "hive".into(),
            table_type: Some("MANAGED_TABLE".into()),
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
    let partition = engine::Partition {
        values: vec!["2024-01-01".into(), "1".into()],
        ..engine::Partition::default()
    };
    let added = engine::AddPartitionsOptions::default();
    store
        .add_partitions("hive", "db", "t", vec![partition], &added)
        .unwrap();
    Arc::new(ServerState::new(store))
}

/// The tables named in every case: missing tables and databases, names with a catalog marker
/// and no separator, an unknown catalog.
const MISSING: [(&str, &str); 4] = [
    ("db", "nope"),
    ("nodb", "t"),
    ("@hive", "t"),
    ("@nocat#db", "t"),
];

fn assert_failed_as_generated(
    state: &Arc<ServerState>,
    message: &[u8],
    protocol: Protocol,
    case: &str,
) {
    let (said, fast, generated) = both_replies(state, message, protocol);
    assert_eq!(said, Answer::Failed, "{case}");
    assert_eq!(fast, generated, "{case}");
}

#[test]
fn table_errors_are_answered_as_the_generated_processor_answers_them() {
    let state = state();
    for protocol in PROTOCOLS {
        for (database, table) in MISSING {
            let case = format!("{protocol:?} get_table {database}.{table}");
            let message = call(
                "get_table",
                protocol,
                &[Arg::Text(database), Arg::Text(table)],
            );
            assert_failed_as_generated(&state, &message, protocol, &case);
            let request = |o: &mut dyn TOutputProtocol| {
                let request = GetTableRequest {
                    db_name: database.to_string(),
                    tbl_name: table.to_string(),
                    capabilities: None,
                    cat_name: None,
                    valid_write_id_list: None,
                    get_column_stats: None,
                    processor_capabilities: None,
                    processor_identifier: None,
                    engine: None,
                    id: None,
                };
                request.write_to_out_protocol(o).unwrap();
            };
            let message = call("get_table_req", protocol, &[Arg::Struct(&request)]);
            let case = format!("{protocol:?} get_table_req {database}.{table}");
            assert_failed_as_generated(&state, &message, protocol, &case);
        }
        let message = call("get_table", protocol, &[]);
        let case = format!("{protocol:?} get_table without arguments");
        assert_failed_as_generated(&state, &message, protocol, &case);
    }
}

#[test]
fn listing_errors_are_answered_as_the_generated_processor_answers_them() {
    let state = state();
    let filters = [
        "ds = '2024-01-01'",
        "ds = ",
        "nokey = 1",
        "ds like '['",
        "hr > 'x'",
    ];
    for protocol in PROTOCOLS {
        let mut cases: Vec<(String, Vec<u8>)> = Vec::new();
        for (database, table) in MISSING {
            let (db, t) = (Arg::Text(database), Arg::Text(table));
            let name = format!("{database}.{table}");
            let message = call("get_partitions", protocol, &[db, t, Arg::I16(-1)]);
            cases.push((format!("get_partitions {name}"), message));
            let (db, t) = (Arg::Text(database), Arg::Text(table));
            let message = call("get_partition_names", protocol, &[db, t, Arg::I16(-1)]);
            cases.push((format!("get_partition_names {name}"), message));
            let (db, t) = (Arg::Text(database), Arg::Text(table));
            let values: &[&str] = &["2024-01-01"];
            let arguments = [db, t, Arg::Texts(values), Arg::I16(-1)];
            let message = call("get_partition_names_ps", protocol, &arguments);
            cases.push((format!("get_partition_names_ps {name}"), message));
            let values: &[&str] = &["2024-01-01"];
            let (db, t) = (Arg::Text(database), Arg::Text(table));
            let message = call(
                "get_partitions_ps",
                protocol,
                &[db, t, Arg::Texts(values), Arg::I16(-1)],
            );
            cases.push((format!("get_partitions_ps {name}"), message));
            let request = |o: &mut dyn TOutputProtocol| {
                let request = PartitionsRequest::new(
                    None,
                    database.to_string(),
                    table.to_string(),
                    None,
                    None,
                    None,
                    None,
                    None,
                    None,
                );
                request.write_to_out_protocol(o).unwrap();
            };
            let message = call("get_partitions_req", protocol, &[Arg::Struct(&request)]);
            cases.push((format!("get_partitions_req {name}"), message));
            let names: &[&str] = &["ds=2024-01-01/hr=1"];
            let (db, t) = (Arg::Text(database), Arg::Text(table));
            let message = call(
                "get_partitions_by_names",
                protocol,
                &[db, t, Arg::Texts(names)],
            );
            cases.push((format!("get_partitions_by_names {name}"), message));
            let request = |o: &mut dyn TOutputProtocol| {
                let request = GetPartitionsByNamesRequest {
                    db_name: database.to_string(),
                    tbl_name: table.to_string(),
                    names: Some(vec!["ds=2024-01-01/hr=1".into()]),
                    get_col_stats: None,
                    processor_capabilities: None,
                    processor_identifier: None,
                    engine: None,
                    valid_write_id_list: None,
                    get_file_metadata: None,
                    id: None,
                    skip_column_schema_for_partition: None,
                    include_param_key_pattern: None,
                    exclude_param_key_pattern: None,
                };
                request.write_to_out_protocol(o).unwrap();
            };
            let message = call(
                "get_partitions_by_names_req",
                protocol,
                &[Arg::Struct(&request)],
            );
            cases.push((format!("get_partitions_by_names_req {name}"), message));
        }
        let too_many: &[&str] = &["2024-01-01", "1", "x"];
        for method in ["get_partition_names_ps", "get_partitions_ps"] {
            let arguments = [
                Arg::Text("db"),
                Arg::Text("t"),
                Arg::Texts(too_many),
                Arg::I16(-1),
            ];
            let message = call(method, protocol, &arguments);
            cases.push((format!("{method} db.t with more values than keys"), message));
        }
        // Hive refuses an empty partial spec.
        for method in ["get_partition_names_ps", "get_partitions_ps"] {
            let arguments = [
                Arg::Text("db"),
                Arg::Text("t"),
                Arg::Texts(&[]),
                Arg::I16(-1),
            ];
            let message = call(method, protocol, &arguments);
            cases.push((format!("{method} db.t with no values"), message));
        }
        // Absent arguments read as empty: no such database.
        for method in [
            "get_partitions",
            "get_partition_names",
            "get_partitions_by_filter",
            "get_partitions_by_names",
        ] {
            cases.push((
                format!("{method} without arguments"),
                call(method, protocol, &[]),
            ));
        }
        for (database, table) in MISSING.into_iter().chain([("db", "t")]) {
            for filter in filters {
                if (database, table) == ("db", "t") && filter == filters[0] {
                    continue;
                }
                let (db, t) = (Arg::Text(database), Arg::Text(table));
                let message = call(
                    "get_partitions_by_filter",
                    protocol,
                    &[db, t, Arg::Text(filter), Arg::I16(-1)],
                );
                cases.push((
                    format!("get_partitions_by_filter {database}.{table} {filter:?}"),
                    message,
                ));
            }
        }
        for (case, message) in cases {
            let case = format!("{protocol:?} {case}");
            let (said, fast, generated) = both_replies(&state, &message, protocol);
            assert_eq!(said, Answer::Failed, "{case}");
            assert_eq!(fast, generated, "{case}");
        }
    }
}

/// What the fast path said and wrote for `message` on one fresh store, and what the generated
/// processor writes on another: for calls that change the store.
fn replies_on_fresh_stores(message: &[u8], protocol: Protocol) -> (Answer, Vec<u8>, Vec<u8>) {
    let (said, fast) = fast_reply(&state(), message, protocol);
    (said, fast, generated_reply(&state(), message, protocol))
}

/// `add_partitions(_req)` acts before it replies, so it answers every outcome itself: the
/// count or the result, a declared exception, the same bytes as the generated processor.
#[test]
fn add_partitions_replies_are_the_generated_processors() {
    let partition = |database: &str, table: &str, values: &[&str]| idl::Partition {
        values: Some(values.iter().map(|value| value.to_string()).collect()),
        db_name: Some(database.to_string()),
        table_name: Some(table.to_string()),
        ..idl::Partition::default()
    };
    let cases = [
        (
            "a new partition",
            partition("db", "t", &["2024-01-02", "2"]),
            Answer::Written,
        ),
        (
            "an existing one",
            partition("db", "t", &["2024-01-01", "1"]),
            Answer::Failed,
        ),
        (
            "one value short",
            partition("db", "t", &["2024-01-02"]),
            Answer::Failed,
        ),
        (
            "a missing table",
            partition("db", "nope", &["2024-01-02", "2"]),
            Answer::Failed,
        ),
        (
            "a missing database",
            partition("nodb", "t", &["2024-01-02", "2"]),
            Answer::Failed,
        ),
    ];
    let protocol = Protocol::Binary;
    for (case, new_partition, expected) in cases {
        let arguments = ThriftHiveMetastoreAddPartitionsArgs {
            new_parts: vec![new_partition.clone()],
        };
        let write = |o: &mut dyn TOutputProtocol| arguments.write_to_out_protocol(o).unwrap();
        let message = whole_call("add_partitions", protocol, &write);
        let (said, fast, generated) = replies_on_fresh_stores(&message, protocol);
        assert_eq!(said, expected, "add_partitions {case}");
        assert_eq!(fast, generated, "add_partitions {case}");
        for need_result in [None, Some(false), Some(true)] {
            let request = idl::AddPartitionsRequest {
                db_name: new_partition.db_name.clone().unwrap(),
                tbl_name: new_partition.table_name.clone().unwrap(),
                parts: vec![new_partition.clone()],
                if_not_exists: false,
                need_result,
                cat_name: None,
                valid_write_id_list: None,
                skip_column_schema_for_partition: None,
                partition_col_schema: None,
                environment_context: None,
            };
            let arguments = ThriftHiveMetastoreAddPartitionsReqArgs { request };
            let write = |o: &mut dyn TOutputProtocol| arguments.write_to_out_protocol(o).unwrap();
            let message = whole_call("add_partitions_req", protocol, &write);
            let (said, fast, generated) = replies_on_fresh_stores(&message, protocol);
            let case = format!("add_partitions_req {case}, needResult {need_result:?}");
            assert_eq!(said, expected, "{case}");
            assert_eq!(fast, generated, "{case}");
        }
    }
}

/// A call of `method` whose argument struct `write` writes whole.
fn whole_call(
    method: &str,
    protocol: Protocol,
    write: &dyn Fn(&mut dyn TOutputProtocol),
) -> Vec<u8> {
    let mut message = Vec::new();
    let mut writer = output(protocol, &mut message);
    let header = TMessageIdentifier::new(method, TMessageType::Call, 9);
    writer.write_message_begin(&header).unwrap();
    write(&mut *writer);
    writer.write_message_end().unwrap();
    drop(writer);
    message
}

/// Hive 2.3's serialised expressions over `ds string, hr int` (label, hex), as the engine's
/// tests read them.
const HIVE23_EXPRESSIONS: &str =
    include_str!("../../../../engine/src/partitions/expr/hive23_blobs.txt");

fn hex_bytes(hex: &str) -> Vec<u8> {
    (0..hex.len())
        .step_by(2)
        .map(|at| u8::from_str_radix(&hex[at..at + 2], 16).unwrap())
        .collect()
}

/// `get_partitions_by_expr` on the fast path writes what the generated processor writes: the
/// partitions Hive's expressions keep (found, unknown, none), and each error.
#[test]
fn by_expr_replies_are_the_generated_processors() {
    let state = state();
    let partitions = [
        "2024-01-01/2",
        "2024-01-02/1",
        "2024-01-03/5",
        "2023-12-31/14",
    ]
    .iter()
    .map(|values| engine::Partition {
        values: values.split('/').map(str::to_string).collect(),
        ..engine::Partition::default()
    })
    .collect();
    let added = engine::AddPartitionsOptions::default();
    state
        .store()
        .add_partitions("hive", "db", "t", partitions, &added)
        .unwrap();
    let mut cases: Vec<(String, &str, &str, Vec<u8>)> = HIVE23_EXPRESSIONS
        .lines()
        .filter_map(|line| line.split_once(' '))
        .map(|(label, hex)| (label.to_string(), "db", "t", hex_bytes(hex)))
        .collect();
    assert!(cases.len() >= 10, "{} expressions", cases.len());
    let first = cases[0].3.clone();
    cases.push(("a missing table".into(), "db", "nope", first.clone()));
    cases.push(("a missing database".into(), "nodb", "t", first.clone()));
    cases.push((
        "bytes cut short".into(),
        "db",
        "t",
        first[..first.len() / 2].to_vec(),
    ));
    cases.push(("no bytes".into(), "db", "t", Vec::new()));
    let mut written = 0;
    for protocol in PROTOCOLS {
        for (label, database, table, expr) in &cases {
            for max_parts in [-1, 1] {
                let request = idl::PartitionsByExprRequest {
                    db_name: database.to_string(),
                    tbl_name: table.to_string(),
                    expr: expr.clone(),
                    default_partition_name: None,
                    max_parts: Some(max_parts),
                    cat_name: None,
                    order: None,
                    valid_write_id_list: None,
                    id: None,
                    skip_column_schema_for_partition: None,
                    include_param_key_pattern: None,
                    exclude_param_key_pattern: None,
                };
                let arguments = idl::ThriftHiveMetastoreGetPartitionsByExprArgs { req: request };
                let write =
                    |o: &mut dyn TOutputProtocol| arguments.write_to_out_protocol(o).unwrap();
                let message = whole_call("get_partitions_by_expr", protocol, &write);
                let (said, fast, generated) = both_replies(&state, &message, protocol);
                let case = format!("{protocol:?} {label} on {database}.{table}, {max_parts}");
                assert_ne!(said, Answer::Declined, "{case}");
                assert_eq!(fast, generated, "{case}");
                written += usize::from(said == Answer::Written);
            }
        }
    }
    assert!(written >= 20, "{written} replies written");
}

/// The field of each fast method's result struct that holds its `MetaException`, as
/// `hive_metastore.thrift` declares it.
const META_EXCEPTION_FIELDS: [(&str, i16); 14] = [
    ("add_partitions", 3),
    ("add_partitions_req", 3),
    ("get_partition_names", 2),
    ("get_partition_names_ps", 1),
    ("get_partitions", 2),
    ("get_partitions_by_expr", 1),
    ("get_partitions_by_filter", 1),
    ("get_partitions_by_names", 1),
    ("get_partitions_by_names_req", 1),
    ("get_partitions_ps", 1),
    ("get_partitions_req", 2),
    ("get_partitions_statistics_req", 2),
    ("get_table", 1),
    ("get_table_req", 1),
];

/// Goal: a refusal (the `MetaException` `Session::authorize` returns) on a fast path is
/// answered as the generated processor answers it, the method's declared `MetaException`.
/// Method: every fast method's refusal is written as its fast path writes a call's error
/// (`write_failure`, or `write_failure_after_acting` for the calls read as they arrive), and
/// the reply is read back field by field against the IDL's declaration, in both protocols.
#[test]
fn a_refusal_is_answered_as_the_declared_meta_exception() {
    let mut fast: Vec<&str> = crate::methods::IMPLEMENTED
        .iter()
        .filter(|method| method.has_fast_path())
        .map(|method| method.name)
        .collect();
    fast.sort_unstable();
    let listed: Vec<&str> = META_EXCEPTION_FIELDS
        .iter()
        .map(|(name, _)| *name)
        .collect();
    assert_eq!(listed, fast, "every fast method, and only they, sorted");
    let refusal = "alice may not SELECT tbl=hive.db.t";
    for protocol in PROTOCOLS {
        for (method, field) in META_EXCEPTION_FIELDS {
            let error = crate::errors::exception(crate::errors::Declared::Meta, refusal);
            let mut reply = Vec::new();
            let o = &mut super::wire::Encoder::new(&mut reply, protocol);
            if implemented(method).unwrap().is_read_arriving() {
                super::write_failure_after_acting(o, method, 5, error).unwrap();
            } else {
                let answer = super::write_failure(o, method, 5, &error).unwrap();
                assert_eq!(answer, Answer::Failed, "{method}");
            }
            let case = format!("{protocol:?} {method}");
            let mut read = input(protocol, &reply);
            let header = read.read_message_begin().unwrap();
            assert_eq!(header.name, method, "{case}");
            assert_eq!(header.message_type, TMessageType::Reply, "{case}");
            assert_eq!(header.sequence_number, 5, "{case}");
            read.read_struct_begin().unwrap();
            let exception_field = read.read_field_begin().unwrap();
            assert_eq!(exception_field.field_type, TType::Struct, "{case}");
            assert_eq!(exception_field.id, Some(field), "{case}");
            let exception = idl::MetaException::read_from_in_protocol(&mut *read).unwrap();
            assert_eq!(exception.message.as_deref(), Some(refusal), "{case}");
            read.read_field_end().unwrap();
            let end = read.read_field_begin().unwrap();
            assert_eq!(end.field_type, TType::Stop, "{case}");
            read.read_struct_end().unwrap();
            read.read_message_end().unwrap();
        }
    }
}
