//! The wire: every protocol and transport, fb303, unknown and unimplemented methods, one-way
//! calls — through the generated Rust client and through raw bytes.

use std::io::Write;
use std::net::TcpStream;

use hivestore_idl::fb303::{FbStatus, TFacebookServiceSyncClient};
use hivestore_idl::hive_metastore::TThriftHiveMetastoreSyncClient;
use hivestore_tests::{client, TestServer, ALL_FORMATS};
use thrift::protocol::{
    TBinaryInputProtocol, TBinaryOutputProtocol, TFieldIdentifier, TInputProtocol,
    TMessageIdentifier, TMessageType, TOutputProtocol, TStructIdentifier, TType,
};
use thrift::ApplicationErrorKind;

/// A call hivestore does not implement (Hive 2's index API); change it here when it does.
fn call_unimplemented(client: &mut hivestore_tests::Client) -> thrift::Result<Vec<String>> {
    client.get_index_names("default".into(), "t".into(), -1)
}

#[test]
fn fb303_answers_in_every_protocol_and_transport() {
    let server = TestServer::start();
    for format in ALL_FORMATS {
        let mut client = client(server.addr, format);
        assert_eq!(client.get_name().unwrap(), "hivestore", "{format:?}");
        assert!(!client.get_version().unwrap().is_empty());
        assert_eq!(client.get_status().unwrap(), FbStatus::ALIVE);
        assert!(client.get_status_details().unwrap().contains("alive"));
        assert!(client.alive_since().unwrap() > 1_600_000_000);
        client.set_option("probe".into(), "1".into()).unwrap();
        assert_eq!(client.get_option("probe".into()).unwrap(), "1");
        assert_eq!(
            client
                .get_options()
                .unwrap()
                .get("probe")
                .map(String::as_str),
            Some("1")
        );
    }
}

#[test]
fn an_unimplemented_method_answers_unknown_method_and_the_connection_stays_usable() {
    let server = TestServer::start();
    for format in ALL_FORMATS {
        let mut client = client(server.addr, format);
        match call_unimplemented(&mut client) {
            Err(thrift::Error::Application(error)) => {
                assert_eq!(
                    error.kind,
                    ApplicationErrorKind::UnknownMethod,
                    "{format:?}"
                );
                // Thrift's own text, as a server without the method answers.
                assert_eq!(error.message, "Invalid method name: 'get_index_names'");
            }
            other => panic!("expected UNKNOWN_METHOD, got {other:?}"),
        }
        assert_eq!(client.get_name().unwrap(), "hivestore", "{format:?}");
    }
}

#[test]
fn counters_count_calls_and_errors_per_method() {
    let server = TestServer::start();
    let mut client = client(server.addr, ALL_FORMATS[0]);
    client.get_name().unwrap();
    client.get_name().unwrap();
    let _ = call_unimplemented(&mut client);
    let counters = client.get_counters().unwrap();
    assert_eq!(counters.get("getName.calls"), Some(&2));
    assert_eq!(counters.get("getName.errors"), None);
    assert_eq!(counters.get("get_index_names.calls"), Some(&1));
    assert_eq!(counters.get("get_index_names.errors"), Some(&1));
    assert_eq!(client.get_counter("getName.calls".into()).unwrap(), 2);
    assert_eq!(client.get_counter("no.such.counter".into()).unwrap(), 0);
}

#[test]
fn set_ugi_returns_the_groups_as_hive_does() {
    let server = TestServer::start();
    let mut client = client(server.addr, ALL_FORMATS[2]);
    let groups = client
        .set_ugi("alice".into(), vec!["analysts".into()])
        .unwrap();
    assert_eq!(groups, vec!["analysts".to_string()]);
}

/// Writes one call whose argument struct carries a few fields, so that skipping it matters.
fn write_call(out: &mut dyn TOutputProtocol, name: &str, kind: TMessageType, seq: i32) {
    out.write_message_begin(&TMessageIdentifier::new(name, kind, seq))
        .unwrap();
    out.write_struct_begin(&TStructIdentifier::new("args"))
        .unwrap();
    out.write_field_begin(&TFieldIdentifier::new("a", TType::String, 1))
        .unwrap();
    out.write_string("some argument").unwrap();
    out.write_field_end().unwrap();
    out.write_field_begin(&TFieldIdentifier::new("b", TType::I64, 2))
        .unwrap();
    out.write_i64(42).unwrap();
    out.write_field_end().unwrap();
    out.write_field_stop().unwrap();
    out.write_struct_end().unwrap();
    out.write_message_end().unwrap();
}

fn read_get_name_reply(input: &mut dyn TInputProtocol, seq: i32) {
    let header = input.read_message_begin().unwrap();
    assert_eq!(
        (header.name.as_str(), header.message_type),
        ("getName", TMessageType::Reply)
    );
    assert_eq!(header.sequence_number, seq);
    input.read_struct_begin().unwrap();
    let field = input.read_field_begin().unwrap();
    assert_eq!((field.id, field.field_type), (Some(0), TType::String));
    assert_eq!(input.read_string().unwrap(), "hivestore");
}

#[test]
fn a_method_the_idl_lacks_is_skipped_whole_and_answered_unknown_method() {
    let server = TestServer::start();
    let stream = server.raw();
    let mut bytes = Vec::new();
    {
        let mut out = TBinaryOutputProtocol::new(&mut bytes, true);
        write_call(&mut out, "no_such_method", TMessageType::Call, 1);
        write_call(&mut out, "getName", TMessageType::Call, 2);
    }
    (&stream).write_all(&bytes).unwrap();
    let mut input = TBinaryInputProtocol::new(stream.try_clone().unwrap(), true);
    let header = input.read_message_begin().unwrap();
    assert_eq!(header.message_type, TMessageType::Exception);
    assert_eq!(header.sequence_number, 1);
    let error = thrift::Error::read_application_error_from_in_protocol(&mut input).unwrap();
    assert_eq!(error.kind, ApplicationErrorKind::UnknownMethod);
    assert_eq!(error.message, "Invalid method name: 'no_such_method'");
    read_get_name_reply(&mut input, 2);
}

#[test]
fn one_way_calls_get_no_reply_and_do_not_stop_the_server() {
    let server = TestServer::start();
    let stream = server.raw();
    let mut bytes = Vec::new();
    {
        // Old clients send one-way calls with the CALL message type, newer ones with ONEWAY.
        let mut out = TBinaryOutputProtocol::new(&mut bytes, true);
        write_call(&mut out, "shutdown", TMessageType::OneWay, 1);
        write_call(&mut out, "reinitialize", TMessageType::Call, 2);
        write_call(&mut out, "getName", TMessageType::Call, 3);
    }
    (&stream).write_all(&bytes).unwrap();
    let mut input = TBinaryInputProtocol::new(stream.try_clone().unwrap(), true);
    read_get_name_reply(&mut input, 3);
    let mut other = TcpStream::connect(server.addr).unwrap();
    let mut bytes = Vec::new();
    write_call(
        &mut TBinaryOutputProtocol::new(&mut bytes, true),
        "getName",
        TMessageType::Call,
        9,
    );
    other.write_all(&bytes).unwrap();
    read_get_name_reply(&mut TBinaryInputProtocol::new(other, true), 9);
}
