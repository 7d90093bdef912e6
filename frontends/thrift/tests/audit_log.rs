//! The audit log of a server running on loopback, written to a temporary file: one line per
//! call, whatever path answered it (generic, fast, read as it arrives, one-way, unknown).
//! Goal: every field of each line says what the call was and how it ended, in text and in
//! JSON, and nothing a client sends (a 1 MiB name, control characters) reaches a line whole
//! or raw. Method: a generated client makes the calls; the log is flushed and parsed.

mod running;
use running::{connect, Running};

use std::collections::BTreeMap;
use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use hivestore_engine::kv::MemoryBackend;
use hivestore_engine::{Durability, Store, StoreOptions};
use hivestore_idl::fb303::TFacebookServiceSyncClient;
use hivestore_idl::hive_metastore::{
    Database, FieldSchema, Function, FunctionType, Partition, PrincipalType, SerDeInfo,
    StorageDescriptor, TThriftHiveMetastoreSyncClient, Table, ThriftHiveMetastoreSyncClient,
};
use hivestore_thrift::audit::{
    AuditDestination, AuditFormat, AuditLog, AuditSettings, AUDIT_MESSAGE_CHARS_MAX,
};
use hivestore_thrift::limits::Limits;
use hivestore_thrift::service::ServerState;
use thrift::protocol::{TBinaryInputProtocol, TBinaryOutputProtocol};
use thrift::transport::{TBufferedReadTransport, TBufferedWriteTransport};

type Client = ThriftHiveMetastoreSyncClient<
    TBinaryInputProtocol<TBufferedReadTransport<TcpStream>>,
    TBinaryOutputProtocol<TBufferedWriteTransport<TcpStream>>,
>;

/// A server writing its audit log to `path` in `format`.
fn serve(path: &Path, format: AuditFormat) -> Running {
    let mut options = StoreOptions::new("s3a://bucket/warehouse".to_string());
    options.durability = Durability::Memory;
    let store = Store::open_with_backend(Arc::new(MemoryBackend::new()), options).unwrap();
    let settings = AuditSettings {
        destination: AuditDestination::File(path.to_path_buf()),
        format,
    };
    let audit = AuditLog::start(&settings).unwrap().unwrap();
    let state = ServerState::new(store).with_audit(Arc::new(audit));
    running::serve(Arc::new(state), Limits::default())
}

fn client(running: &Running) -> Client {
    let stream = connect(running.address);
    ThriftHiveMetastoreSyncClient::new(
        TBinaryInputProtocol::new(
            TBufferedReadTransport::new(stream.try_clone().unwrap()),
            true,
        ),
        TBinaryOutputProtocol::new(TBufferedWriteTransport::new(stream), true),
    )
}

/// The log's lines once everything queued is written.
fn lines(running: &Running, path: &Path) -> Vec<String> {
    running.state.audit().unwrap().flush();
    let text = std::fs::read_to_string(path).unwrap();
    assert!(
        !text.contains('\u{1b}'),
        "an escape sequence reached the log"
    );
    text.lines().map(str::to_string).collect()
}

/// One text line's fields: `time` for the leading one, then each `key=value`.
fn text_fields(line: &str) -> BTreeMap<String, String> {
    let mut parts = line.split('\t');
    let mut fields = BTreeMap::new();
    fields.insert("time".to_string(), parts.next().unwrap().to_string());
    for part in parts {
        let (key, value) = part
            .split_once('=')
            .unwrap_or_else(|| panic!("{part:?} in {line:?}"));
        assert!(
            fields.insert(key.to_string(), value.to_string()).is_none(),
            "{key} twice in {line:?}"
        );
    }
    fields
}

/// The fields of the one line of `cmd` (the command before ` : `), failing unless there is
/// exactly one.
fn line_of(lines: &[String], cmd: &str) -> BTreeMap<String, String> {
    let found: Vec<_> = lines
        .iter()
        .map(|line| text_fields(line))
        .filter(|fields| fields["cmd"].split(" : ").next() == Some(cmd))
        .collect();
    assert_eq!(found.len(), 1, "lines of {cmd}: {lines:#?}");
    found.into_iter().next().unwrap()
}

/// Checks the fields every line has: the time (RFC 3339 UTC, milliseconds), the user, the
/// address, the duration.
fn check_common(fields: &BTreeMap<String, String>, ugi: &str) {
    let time = &fields["time"];
    assert_eq!(time.len(), "2025-01-02T03:04:05.678Z".len(), "{time}");
    assert!(time.ends_with('Z') && &time[10..11] == "T" && &time[19..20] == ".");
    assert!(time[..4].parse::<u32>().unwrap() >= 2024, "{time}");
    assert_eq!(fields["ugi"], ugi);
    assert_eq!(fields["ip"], "127.0.0.1");
    fields["duration_us"].parse::<u64>().unwrap();
    assert!(!fields.contains_key("principal"), "no authentication");
}

fn table() -> Table {
    let column = |name: &str, type_: &str| FieldSchema {
        name: Some(name.to_string()),
        type_: Some(type_.to_string()),
        comment: None,
    };
    Table {
        db_name: Some("sales".to_string()),
        table_name: Some("orders".to_string()),
        table_type: Some("EXTERNAL_TABLE".to_string()),
        partition_keys: Some(vec![column("ds", "string")]),
        sd: Some(StorageDescriptor {
            cols: Some(vec![column("id", "bigint")]),
            location: Some("s3a://bucket/sales/orders".to_string()),
            input_format: Some("org.apache.hadoop.mapred.TextInputFormat".to_string()),
            serde_info: Some(SerDeInfo {
                serialization_lib: Some(
                    "org.apache.hadoop.hive.serde2.lazy.LazySimpleSerDe".to_string(),
                ),
                ..SerDeInfo::default()
            }),
            ..StorageDescriptor::default()
        }),
        ..Table::default()
    }
}

fn partition(day: &str) -> Partition {
    Partition {
        values: Some(vec![day.to_string()]),
        db_name: Some("sales".to_string()),
        table_name: Some("orders".to_string()),
        sd: table().sd.map(|sd| StorageDescriptor {
            location: None,
            ..sd
        }),
        ..Partition::default()
    }
}

/// Sends a call of a method no IDL knows (`name`, no arguments) and reads the reply.
fn call_unknown(running: &Running, name: &str) {
    let mut message = vec![0x80, 0x01, 0x00, 0x01];
    message.extend_from_slice(&(name.len() as i32).to_be_bytes());
    message.extend_from_slice(name.as_bytes());
    message.extend_from_slice(&1i32.to_be_bytes());
    message.push(0);
    let mut stream = connect(running.address);
    stream.write_all(&message).unwrap();
    let mut header = [0u8; 4];
    stream.read_exact(&mut header).unwrap();
    assert_eq!(header, [0x80, 0x01, 0x00, 0x03], "an exception reply");
}

/// The calls both format tests make: set_ugi, a successful create and read, a failed read, a
/// fast-path get_table, add_partitions (read as it arrives), a function, a one-way call.
fn make_calls(running: &Running) {
    let mut client = client(running);
    client.set_ugi("alice".into(), vec![]).unwrap();
    client
        .create_database(Database {
            name: Some("Sales".into()),
            ..Database::default()
        })
        .unwrap();
    client.get_database("SALES".into()).unwrap();
    assert!(client.get_database("missing".into()).is_err());
    client.create_table(table()).unwrap();
    client.get_table("sales".into(), "orders".into()).unwrap();
    client
        .add_partitions(vec![partition("2024-01-01"), partition("2024-01-02")])
        .unwrap();
    client
        .create_function(Function {
            function_name: Some("f".into()),
            db_name: Some("sales".into()),
            class_name: Some("org.example.F".into()),
            owner_name: Some("alice".into()),
            owner_type: Some(PrincipalType::USER),
            function_type: Some(FunctionType::JAVA),
            resource_uris: Some(vec![]),
            ..Function::default()
        })
        .unwrap();
    client.reinitialize().unwrap();
    // A reply after the one-way call: the server read and logged it.
    client.get_status().unwrap();
}

#[test]
fn text_lines_name_the_user_command_objects_outcome_and_duration() {
    let directory = tempfile::tempdir().unwrap();
    let path = directory.path().join("audit.log");
    let running = serve(&path, AuditFormat::Text);
    make_calls(&running);
    call_unknown(&running, "no_such_method");
    let lines = lines(&running, &path);

    let created = line_of(&lines, "create_database");
    check_common(&created, "alice");
    assert_eq!(created["cmd"], "create_database : server");
    assert_eq!(created["outcome"], "ok");

    let read = line_of(
        &lines
            .iter()
            .filter(|line| line.contains("outcome=ok"))
            .cloned()
            .collect::<Vec<_>>(),
        "get_database",
    );
    assert_eq!(read["cmd"], "get_database : db=hive.sales");

    let failed = line_of(
        &lines
            .iter()
            .filter(|line| !line.contains("outcome=ok"))
            .cloned()
            .collect::<Vec<_>>(),
        "get_database",
    );
    check_common(&failed, "alice");
    assert_eq!(failed["cmd"], "get_database : db=hive.missing");
    assert_eq!(failed["outcome"], "NoSuchObjectException");
    let message = &failed["message"];
    assert!(
        message.starts_with('"') && message.ends_with('"') && message.contains("missing"),
        "{message}"
    );
    assert!(
        !failed.contains_key("message_chars"),
        "a short message is whole"
    );

    let fast = line_of(&lines, "get_table");
    check_common(&fast, "alice");
    assert_eq!(fast["outcome"], "ok");

    let arriving = line_of(&lines, "add_partitions");
    check_common(&arriving, "alice");
    assert_eq!(arriving["outcome"], "ok");

    let function = line_of(&lines, "create_function");
    assert_eq!(function["cmd"], "create_function : db=hive.sales");

    let one_way = line_of(&lines, "reinitialize");
    check_common(&one_way, "alice");
    assert_eq!(one_way["cmd"], "reinitialize : server");
    assert_eq!(one_way["outcome"], "ok");

    let unknown = line_of(&lines, "no_such_method");
    check_common(&unknown, "-");
    assert_eq!(unknown["outcome"], "TApplicationException(UNKNOWN_METHOD)");
    assert_eq!(
        unknown["message"],
        "\"Invalid method name: 'no_such_method'\""
    );

    let ugi = line_of(&lines, "set_ugi");
    assert_eq!(ugi["ugi"], "alice");
}

#[test]
fn json_lines_have_the_text_keys() {
    let directory = tempfile::tempdir().unwrap();
    let path = directory.path().join("audit.json");
    let running = serve(&path, AuditFormat::Json);
    make_calls(&running);
    let lines = lines(&running, &path);
    let objects: Vec<serde_json::Value> = lines
        .iter()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    let of = |cmd: &str, outcome: &str| {
        let found: Vec<_> = objects
            .iter()
            .filter(|object| object["cmd"] == cmd && object["outcome"] == outcome)
            .collect();
        assert_eq!(found.len(), 1, "{cmd} {outcome}: {lines:#?}");
        found[0].clone()
    };
    let read = of("get_database", "ok");
    assert_eq!(read["ugi"], "alice");
    assert_eq!(read["ip"], "127.0.0.1");
    assert_eq!(read["objects"], serde_json::json!(["db=hive.sales"]));
    assert!(read["duration_us"].as_u64().is_some());
    let time = read["time"].as_str().unwrap();
    assert!(time.ends_with('Z') && time.len() == 24, "{time}");
    let failed = of("get_database", "NoSuchObjectException");
    assert!(failed["message"].as_str().unwrap().contains("missing"));
    assert_eq!(failed["objects"], serde_json::json!(["db=hive.missing"]));
    let mut keys: Vec<_> = failed.as_object().unwrap().keys().cloned().collect();
    keys.sort();
    assert_eq!(
        keys,
        [
            "cmd",
            "duration_us",
            "ip",
            "message",
            "objects",
            "outcome",
            "time",
            "ugi"
        ]
    );
    of("get_table", "ok");
    of("add_partitions", "ok");
    of("reinitialize", "ok");
    of("create_function", "ok");
}

#[test]
fn a_1_mib_name_is_quoted_as_a_prefix_with_its_length() {
    let directory = tempfile::tempdir().unwrap();
    let path = directory.path().join("audit.log");
    let running = serve(&path, AuditFormat::Text);
    let mut client = client(&running);
    client
        .create_database(Database {
            name: Some("sales".into()),
            ..Database::default()
        })
        .unwrap();
    let long = "t".repeat(1 << 20);
    assert!(client.get_table("sales".into(), long.clone()).is_err());
    assert!(client.get_database(long.clone()).is_err());
    // Control characters in a name stay escaped, on one line.
    assert!(client.get_database("a\tb\n\u{1b}[31m".into()).is_err());
    let lines = lines(&running, &path);
    assert_eq!(lines.len(), 4, "{lines:#?}");
    for line in &lines {
        assert!(line.len() < 2048, "a line of {} bytes", line.len());
    }
    let quoted_whole = |fields: &BTreeMap<String, String>| {
        let message = &fields["message"];
        assert!(
            message.starts_with("\"") && message.ends_with('"'),
            "{message}"
        );
        let chars: usize = fields["message_chars"].parse().unwrap();
        assert!(chars > AUDIT_MESSAGE_CHARS_MAX, "{chars}");
        assert!(
            message.chars().count() <= AUDIT_MESSAGE_CHARS_MAX + 2,
            "{message}"
        );
    };
    let table = line_of(&lines, "get_table");
    assert_ne!(table["outcome"], "ok");
    quoted_whole(&table);
    let database = text_fields(&lines[2]);
    let object = database["cmd"].split(" : ").nth(1).unwrap();
    assert!(object.starts_with("db=hive.ttt"), "{object}");
    assert!(
        object.ends_with(&format!("...({} chars)", 1 << 20)),
        "{object}"
    );
    quoted_whole(&database);
    let escaped = text_fields(&lines[3]);
    assert_eq!(escaped["cmd"], "get_database : db=hive.a\\tb\\n\\u{1b}[31m");
}

#[test]
fn the_counters_say_how_many_audit_writes_failed() {
    let directory = tempfile::tempdir().unwrap();
    let path = directory.path().join("audit.log");
    let running = serve(&path, AuditFormat::Text);
    let mut client = client(&running);
    let counters = client.get_counters().unwrap();
    assert_eq!(counters.get("audit.write_errors"), Some(&0));
}

#[test]
fn reopen_starts_a_new_file_after_a_rename() {
    let directory = tempfile::tempdir().unwrap();
    let path = directory.path().join("audit.log");
    let running = serve(&path, AuditFormat::Text);
    let mut client = client(&running);
    client.get_status().unwrap();
    running.state.audit().unwrap().flush();
    let rotated: PathBuf = directory.path().join("audit.log.1");
    std::fs::rename(&path, &rotated).unwrap();
    client.get_name().unwrap();
    running.state.audit().unwrap().reopen();
    client.get_version().unwrap();
    let after = lines(&running, &path);
    let before = std::fs::read_to_string(&rotated).unwrap();
    assert!(before.contains("cmd=getStatus") && before.contains("cmd=getName"));
    assert_eq!(after.len(), 1, "{after:#?}");
    assert!(after[0].contains("cmd=getVersion"));
}
