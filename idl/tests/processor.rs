//! The generated processor driven through `Adapter` with a small `Handler`, over in-memory
//! binary protocol buffers; and the two mechanical patches of gen.sh (unions, implicit ids).

use std::sync::{Arc, Mutex};

use hivestore_idl::handler::{Adapter, Handler};
use hivestore_idl::hive_metastore::{
    ColumnStatisticsData, CreateDatabaseRequest, FireEventRequestData, NoSuchObjectException,
    RequestPartsSpec, Table, ThriftHiveMetastoreSyncProcessor,
};
use thrift::protocol::{
    TBinaryInputProtocol, TBinaryOutputProtocol, TFieldIdentifier, TInputProtocol,
    TMessageIdentifier, TMessageType, TOutputProtocol, TSerializable, TStructIdentifier, TType,
};
use thrift::server::TProcessor;
use thrift::ApplicationErrorKind;

type Log = Arc<Mutex<Vec<(&'static str, bool)>>>;
/// (name, ifNotExists, checkReferences) of each drop_dataconnector call.
type Dropped = Arc<Mutex<Vec<(String, bool, bool)>>>;

struct Fake {
    observed: Log,
    dropped: Dropped,
    /// Each failed call, and whether its error was a `NoSuchObjectException`.
    failures: Log,
}

impl Handler for Fake {
    fn get_table(&self, dbname: String, tbl_name: String) -> thrift::Result<Table> {
        if tbl_name == "missing" {
            let e = NoSuchObjectException::new(format!("table {dbname}.{tbl_name} does not exist"));
            return Err(thrift::Error::User(Box::new(e)));
        }
        Ok(Table {
            table_name: Some(tbl_name),
            db_name: Some(dbname),
            ..Default::default()
        })
    }

    fn drop_dataconnector(
        &self,
        check_references: bool,
        if_not_exists: bool,
        name: String,
    ) -> thrift::Result<()> {
        self.dropped
            .lock()
            .unwrap()
            .push((name, if_not_exists, check_references));
        Ok(())
    }

    fn observe(&self, method: &'static str, failed: bool) {
        self.observed.lock().unwrap().push((method, failed));
    }

    fn failed(&self, method: &'static str, error: &thrift::Error) {
        let declared = matches!(error, thrift::Error::User(error)
            if error.downcast_ref::<NoSuchObjectException>().is_some());
        self.failures.lock().unwrap().push((method, declared));
    }
}

fn processor() -> (
    ThriftHiveMetastoreSyncProcessor<Adapter<Fake>>,
    Log,
    Dropped,
) {
    let (processor, observed, dropped, _) = processor_with_failures();
    (processor, observed, dropped)
}

fn processor_with_failures() -> (
    ThriftHiveMetastoreSyncProcessor<Adapter<Fake>>,
    Log,
    Dropped,
    Log,
) {
    let observed = Log::default();
    let dropped = Dropped::default();
    let failures = Log::default();
    let fake = Fake {
        observed: Arc::clone(&observed),
        dropped: Arc::clone(&dropped),
        failures: Arc::clone(&failures),
    };
    (
        ThriftHiveMetastoreSyncProcessor::new(Adapter(Arc::new(fake))),
        observed,
        dropped,
        failures,
    )
}

/// A call message: `name`, then an args struct whose fields `fields` writes.
fn call(name: &str, fields: impl FnOnce(&mut dyn TOutputProtocol)) -> Vec<u8> {
    let mut buf = Vec::new();
    {
        let mut o = TBinaryOutputProtocol::new(&mut buf, true);
        o.write_message_begin(&TMessageIdentifier::new(name, TMessageType::Call, 7))
            .unwrap();
        o.write_struct_begin(&TStructIdentifier::new("args"))
            .unwrap();
        fields(&mut o);
        o.write_field_stop().unwrap();
        o.write_struct_end().unwrap();
        o.write_message_end().unwrap();
    }
    buf
}

fn string_field(o: &mut dyn TOutputProtocol, id: i16, value: &str) {
    o.write_field_begin(&TFieldIdentifier::new("s", TType::String, id))
        .unwrap();
    o.write_string(value).unwrap();
    o.write_field_end().unwrap();
}

fn bool_field(o: &mut dyn TOutputProtocol, id: i16, value: bool) {
    o.write_field_begin(&TFieldIdentifier::new("b", TType::Bool, id))
        .unwrap();
    o.write_bool(value).unwrap();
    o.write_field_end().unwrap();
}

/// Runs one message through the processor and returns the reply bytes.
fn process<P: TProcessor>(p: &P, request: &[u8]) -> thrift::Result<Vec<u8>> {
    let mut reply = Vec::new();
    {
        let mut i = TBinaryInputProtocol::new(request, true);
        let mut o = TBinaryOutputProtocol::new(&mut reply, true);
        p.process(&mut i, &mut o)?;
    }
    Ok(reply)
}

#[test]
fn unimplemented_method_answers_unknown_method() {
    let (p, observed, _) = processor();
    let request = call("get_database", |o| string_field(o, 1, "db1"));
    let reply = process(&p, &request).unwrap();
    let mut i = TBinaryInputProtocol::new(&reply[..], true);
    let ident = i.read_message_begin().unwrap();
    assert_eq!(ident.name, "get_database");
    assert_eq!(ident.message_type, TMessageType::Exception);
    assert_eq!(ident.sequence_number, 7);
    let err = thrift::Error::read_application_error_from_in_protocol(&mut i).unwrap();
    assert_eq!(err.kind, ApplicationErrorKind::UnknownMethod);
    assert_eq!(err.message, "Invalid method name: 'get_database'");
    assert_eq!(*observed.lock().unwrap(), vec![("get_database", true)]);
}

#[test]
fn implemented_method_replies() {
    let (p, observed, _) = processor();
    let request = call("get_table", |o| {
        string_field(o, 1, "db1");
        string_field(o, 2, "t1");
    });
    let reply = process(&p, &request).unwrap();
    let mut i = TBinaryInputProtocol::new(&reply[..], true);
    let ident = i.read_message_begin().unwrap();
    assert_eq!(ident.message_type, TMessageType::Reply);
    i.read_struct_begin().unwrap();
    let field = i.read_field_begin().unwrap();
    assert_eq!((field.id, field.field_type), (Some(0), TType::Struct));
    let table = Table::read_from_in_protocol(&mut i).unwrap();
    assert_eq!(table.db_name.as_deref(), Some("db1"));
    assert_eq!(table.table_name.as_deref(), Some("t1"));
    assert_eq!(*observed.lock().unwrap(), vec![("get_table", false)]);
}

#[test]
fn declared_exception_is_a_reply_and_counts_as_failed() {
    let (p, observed, _, failures) = processor_with_failures();
    let request = call("get_table", |o| {
        string_field(o, 1, "db1");
        string_field(o, 2, "missing");
    });
    let reply = process(&p, &request).unwrap();
    let mut i = TBinaryInputProtocol::new(&reply[..], true);
    assert_eq!(
        i.read_message_begin().unwrap().message_type,
        TMessageType::Reply
    );
    i.read_struct_begin().unwrap();
    let field = i.read_field_begin().unwrap();
    // get_table throws (1: MetaException o1, 2: NoSuchObjectException o2)
    assert_eq!((field.id, field.field_type), (Some(2), TType::Struct));
    let e = NoSuchObjectException::read_from_in_protocol(&mut i).unwrap();
    assert_eq!(
        e.message.as_deref(),
        Some("table db1.missing does not exist")
    );
    assert_eq!(*observed.lock().unwrap(), vec![("get_table", true)]);
    // The handler is told the error itself, before the processor writes it.
    assert_eq!(*failures.lock().unwrap(), vec![("get_table", true)]);
}

#[test]
fn fb303_methods_dispatch_through_the_same_handler() {
    let (p, observed, _) = processor();
    let reply = process(&p, &call("getName", |_| {})).unwrap();
    let mut i = TBinaryInputProtocol::new(&reply[..], true);
    assert_eq!(
        i.read_message_begin().unwrap().message_type,
        TMessageType::Exception
    );
    let err = thrift::Error::read_application_error_from_in_protocol(&mut i).unwrap();
    assert_eq!(err.kind, ApplicationErrorKind::UnknownMethod);
    assert_eq!(*observed.lock().unwrap(), vec![("getName", true)]);
}

#[test]
fn drop_dataconnector_reads_implicit_negative_field_ids() {
    // Hive 4.0 declared drop_dataconnector(1:string name, bool ifNotExists, bool
    // checkReferences): its clients send ids 1, -1, -2. gen.sh patches the generated arms.
    let (p, observed, dropped) = processor();
    let request = call("drop_dataconnector", |o| {
        bool_field(o, -2, false);
        bool_field(o, -1, true);
        string_field(o, 1, "mysql_dc");
    });
    let reply = process(&p, &request).unwrap();
    let mut i = TBinaryInputProtocol::new(&reply[..], true);
    assert_eq!(
        i.read_message_begin().unwrap().message_type,
        TMessageType::Reply
    );
    assert_eq!(
        *dropped.lock().unwrap(),
        vec![("mysql_dc".to_owned(), true, false)]
    );
    assert_eq!(
        *observed.lock().unwrap(),
        vec![("drop_dataconnector", false)]
    );
}

#[test]
fn method_not_in_the_idl_answers_unknown_method() {
    // answered by the generated processor itself; the handler never sees it
    let (p, observed, _) = processor();
    let reply = process(&p, &call("no_such_method", |_| {})).unwrap();
    let mut i = TBinaryInputProtocol::new(&reply[..], true);
    let ident = i.read_message_begin().unwrap();
    assert_eq!(ident.message_type, TMessageType::Exception);
    let err = thrift::Error::read_application_error_from_in_protocol(&mut i).unwrap();
    assert_eq!(err.kind, ApplicationErrorKind::UnknownMethod);
    assert!(observed.lock().unwrap().is_empty());
}

#[test]
fn a_missing_argument_reads_as_its_default_as_hive_takes_null() {
    // Java clients leave a null argument out; Hive's handler gets null. patch_generated.py
    // (patch 4) makes the reader hand the handler the type's default instead of failing.
    let (p, observed, _) = processor();
    let request = call("get_table", |o| string_field(o, 1, "db1"));
    let reply = process(&p, &request).unwrap();
    let mut i = TBinaryInputProtocol::new(&reply[..], true);
    assert_eq!(
        i.read_message_begin().unwrap().message_type,
        TMessageType::Reply
    );
    assert_eq!(*observed.lock().unwrap(), vec![("get_table", false)]);
}

#[test]
fn a_missing_enum_argument_is_still_an_application_error_before_the_handler() {
    // An enum has no default to stand for null, so such arguments stay required.
    let (p, observed, _) = processor();
    let request = call("list_roles", |o| string_field(o, 1, "alice"));
    let reply = process(&p, &request).unwrap();
    let mut i = TBinaryInputProtocol::new(&reply[..], true);
    assert_eq!(
        i.read_message_begin().unwrap().message_type,
        TMessageType::Exception
    );
    let err = thrift::Error::read_application_error_from_in_protocol(&mut i).unwrap();
    assert_eq!(err.kind, ApplicationErrorKind::Unknown);
    assert!(err.message.contains("principal_type"), "{}", err.message);
    assert!(observed.lock().unwrap().is_empty());
}

#[test]
fn field_of_the_wrong_wire_type_is_an_error() {
    // Hive 4.0 clients send CreateDatabaseRequest.type (11) as a string; Hive 4 declares an
    // enum. The generated reader does not check the wire type: it reads an i32 (the string's
    // length) and then trips over the string's bytes.
    let mut buf = Vec::new();
    {
        let mut o = TBinaryOutputProtocol::new(&mut buf, true);
        o.write_struct_begin(&TStructIdentifier::new("r")).unwrap();
        string_field(&mut o, 1, "db1");
        string_field(&mut o, 11, "NATIVE");
        o.write_field_stop().unwrap();
        o.write_struct_end().unwrap();
    }
    let mut i = TBinaryInputProtocol::new(&buf[..], true);
    assert!(CreateDatabaseRequest::read_from_in_protocol(&mut i).is_err());
}

#[test]
fn oneway_call_writes_no_reply_even_when_unimplemented() {
    let (p, observed, _) = processor();
    let mut buf = Vec::new();
    {
        let mut o = TBinaryOutputProtocol::new(&mut buf, true);
        o.write_message_begin(&TMessageIdentifier::new(
            "shutdown",
            TMessageType::OneWay,
            3,
        ))
        .unwrap();
        o.write_struct_begin(&TStructIdentifier::new("args"))
            .unwrap();
        o.write_field_stop().unwrap();
        o.write_struct_end().unwrap();
        o.write_message_end().unwrap();
    }
    let reply = process(&p, &buf).unwrap();
    assert!(
        reply.is_empty(),
        "a oneway call got {} reply bytes",
        reply.len()
    );
    assert_eq!(*observed.lock().unwrap(), vec![("shutdown", true)]);
}

/// A struct with one field, `id`, of type i32, and nothing else.
fn struct_with_only_field(id: i16) -> Vec<u8> {
    let mut buf = Vec::new();
    {
        let mut o = TBinaryOutputProtocol::new(&mut buf, true);
        o.write_struct_begin(&TStructIdentifier::new("u")).unwrap();
        o.write_field_begin(&TFieldIdentifier::new("x", TType::I32, id))
            .unwrap();
        o.write_i32(42).unwrap();
        o.write_field_end().unwrap();
        o.write_field_stop().unwrap();
        o.write_struct_end().unwrap();
    }
    buf
}

fn read_union<U: TSerializable>(bytes: &[u8]) -> thrift::Result<U> {
    let mut i = TBinaryInputProtocol::new(bytes, true);
    U::read_from_in_protocol(&mut i)
}

#[test]
fn union_with_only_an_unknown_field_is_an_error_not_a_panic() {
    let bytes = struct_with_only_field(99);
    assert!(read_union::<ColumnStatisticsData>(&bytes).is_err());
    assert!(read_union::<RequestPartsSpec>(&bytes).is_err());
    assert!(read_union::<FireEventRequestData>(&bytes).is_err());
}

#[test]
fn union_with_one_known_field_reads() {
    // FireEventRequestData: 3: optional bool refreshEvent
    let mut buf = Vec::new();
    {
        let mut o = TBinaryOutputProtocol::new(&mut buf, true);
        o.write_struct_begin(&TStructIdentifier::new("u")).unwrap();
        bool_field(&mut o, 3, true);
        o.write_field_stop().unwrap();
        o.write_struct_end().unwrap();
    }
    let u = read_union::<FireEventRequestData>(&buf).unwrap();
    assert_eq!(u, FireEventRequestData::RefreshEvent(true));
}
