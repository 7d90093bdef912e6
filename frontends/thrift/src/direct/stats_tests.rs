//! `get_partitions_statistics_req` answered directly against the generated code: each
//! statistics object is written as the generated code writes what `column_stats_to_idl`
//! builds, and whole replies, read from a store, are the generated processor's bytes.

use std::sync::Arc;

use hivestore_engine as engine;
use hivestore_idl::handler::Adapter;
use hivestore_idl::hive_metastore::{PartitionsStatsRequest, ThriftHiveMetastoreSyncProcessor};
use proptest::prelude::*;
use thrift::protocol::{
    TBinaryInputProtocol, TBinaryOutputProtocol, TCompactInputProtocol, TCompactOutputProtocol,
    TFieldIdentifier, TInputProtocol, TMessageIdentifier, TMessageType, TOutputProtocol,
    TSerializable, TStructIdentifier, TType,
};
use thrift::server::TProcessor;

use engine::{ColumnStatistics, StatsDecimal, StatsKind, StatsValue};

use super::wire::Encoder;
use super::{stats_encode, Answer};
use crate::convert_stats::column_stats_to_idl;
use crate::detect::Protocol;
use crate::service::{ServerState, Session};

const PROTOCOLS: [Protocol; 2] = [Protocol::Binary, Protocol::Compact];

const KINDS: [StatsKind; 8] = [
    StatsKind::Boolean,
    StatsKind::Long,
    StatsKind::Double,
    StatsKind::String,
    StatsKind::Binary,
    StatsKind::Decimal,
    StatsKind::Date,
    StatsKind::Timestamp,
];

/// A writer of `protocol` into `out` (also for `failure_tests.rs`).
pub(super) fn output(protocol: Protocol, out: &mut Vec<u8>) -> Box<dyn TOutputProtocol + '_> {
    match protocol {
        Protocol::Compact => Box::new(TCompactOutputProtocol::new(out)),
        _ => Box::new(TBinaryOutputProtocol::new(out, true)),
    }
}

/// A reader of `protocol` over `bytes` (also for `failure_tests.rs`).
pub(super) fn input(protocol: Protocol, bytes: &[u8]) -> Box<dyn TInputProtocol + '_> {
    match protocol {
        Protocol::Compact => Box::new(TCompactInputProtocol::new(bytes)),
        _ => Box::new(TBinaryInputProtocol::new(bytes, true)),
    }
}

/// `stats` written directly and by the generated code from its conversion.
fn both_ways(stats: &ColumnStatistics, protocol: Protocol) -> (Vec<u8>, Vec<u8>) {
    let mut direct = Vec::new();
    stats_encode::column_statistics(&mut Encoder::new(&mut direct, protocol), stats);
    let mut generated = Vec::new();
    column_stats_to_idl(stats.clone())
        .write_to_out_protocol(&mut *output(protocol, &mut generated))
        .unwrap();
    (direct, generated)
}

fn decimal(unscaled: &[u8], scale: i16) -> StatsValue {
    StatsValue::Decimal(StatsDecimal {
        unscaled: unscaled.to_vec(),
        scale,
    })
}

/// Bounds of the kind's own type, and of the others (which the wire truncates or drops).
fn bounds(kind: StatsKind) -> Vec<(Option<StatsValue>, Option<StatsValue>)> {
    let own = match kind {
        StatsKind::Double => (StatsValue::Double(-0.5), StatsValue::Double(1e300)),
        StatsKind::Decimal => (decimal(&[0xff, 0x06], 2), decimal(&[0x03, 0xe8], 2)),
        _ => (StatsValue::Integer(-17), StatsValue::Integer(1_700_086_400)),
    };
    vec![
        (None, None),
        (Some(own.0.clone()), None),
        (None, Some(own.1.clone())),
        (Some(own.0), Some(own.1)),
        (Some(StatsValue::Double(2.75)), Some(decimal(&[1], 0))),
        (
            Some(StatsValue::Integer(i64::MIN)),
            Some(StatsValue::Double(f64::NAN)),
        ),
    ]
}

/// Every kind, with and without each bound, bitVectors and histogram, under ASCII and
/// non-ASCII names.
fn every_variation() -> Vec<ColumnStatistics> {
    let names = [("id", "bigint"), ("prénom_名前", "varchar(10) ünïcode")];
    let sketches = [None, Some(b"HL\x00\x01\xff".to_vec())];
    let mut all = Vec::new();
    for kind in KINDS {
        for (low, high) in bounds(kind) {
            for (bit_vectors, histogram) in [
                (None, None),
                (sketches[1].clone(), None),
                (None, Some(vec![0u8; 300])),
                (sketches[1].clone(), Some(vec![7u8; 3])),
            ] {
                for (name, column_type) in names {
                    let mut stats = ColumnStatistics::new(name, column_type, kind);
                    stats.low_value = low.clone();
                    stats.high_value = high.clone();
                    stats.num_nulls = 3;
                    stats.num_distinct_values = 1 << 40;
                    stats.max_length = 12;
                    stats.avg_length = 4.25;
                    stats.num_trues = -1;
                    stats.num_falses = i64::MAX;
                    stats.bit_vectors = bit_vectors.clone();
                    stats.histogram = histogram.clone();
                    all.push(stats);
                }
            }
        }
    }
    all
}

#[test]
fn every_kind_is_written_as_the_generated_code_writes_its_conversion() {
    let all = every_variation();
    assert_eq!(all.len(), 8 * 6 * 4 * 2);
    for stats in &all {
        for protocol in PROTOCOLS {
            let (direct, generated) = both_ways(stats, protocol);
            assert_eq!(direct, generated, "{protocol:?} {stats:?}");
            assert!(direct.len() <= stats_encode::size_hint(stats), "{stats:?}");
        }
    }
}

fn any_bound() -> impl Strategy<Value = Option<StatsValue>> {
    prop_oneof![
        Just(None),
        any::<i64>().prop_map(|value| Some(StatsValue::Integer(value))),
        any::<f64>().prop_map(|value| Some(StatsValue::Double(value))),
        (prop::collection::vec(any::<u8>(), 0..20), any::<i16>())
            .prop_map(|(unscaled, scale)| Some(decimal(&unscaled, scale))),
    ]
}

fn any_statistics() -> impl Strategy<Value = ColumnStatistics> {
    let sketch = || proptest::option::of(prop::collection::vec(any::<u8>(), 0..40));
    (
        (0..KINDS.len(), "\\PC{0,8}", "\\PC{0,8}"),
        (any_bound(), any_bound()),
        prop::array::uniform6(any::<i64>()),
        any::<f64>(),
        (sketch(), sketch()),
    )
        .prop_map(
            |((kind, name, column_type), bounds, numbers, average, sketches)| {
                let mut stats = ColumnStatistics::new(&name, &column_type, KINDS[kind]);
                (stats.low_value, stats.high_value) = bounds;
                stats.num_nulls = numbers[0];
                stats.num_distinct_values = numbers[1];
                stats.max_length = numbers[2];
                stats.num_trues = numbers[3];
                stats.num_falses = numbers[4];
                stats.avg_length = average;
                (stats.bit_vectors, stats.histogram) = sketches;
                stats
            },
        )
}

proptest! {
    /// Whatever the values, in both protocols.
    #[test]
    fn any_statistics_are_written_as_the_generated_code_writes_their_conversion(
        stats in any_statistics(),
        compact in any::<bool>(),
    ) {
        let protocol = if compact { Protocol::Compact } else { Protocol::Binary };
        let (direct, generated) = both_ways(&stats, protocol);
        prop_assert_eq!(direct, generated);
    }
}

/// Columns of every kind, as a table declares them.
const COLUMNS: [(&str, &str, StatsKind); 8] = [
    ("flag", "boolean", StatsKind::Boolean),
    ("id", "bigint", StatsKind::Long),
    ("amount", "double", StatsKind::Double),
    ("name", "string", StatsKind::String),
    ("payload", "binary", StatsKind::Binary),
    ("dec", "decimal(10,2)", StatsKind::Decimal),
    ("dt", "date", StatsKind::Date),
    ("ts", "timestamp", StatsKind::Timestamp),
];

/// Partitions of `db.t` by `ds`; these values, non-ASCII among them, have statistics of every
/// column (some with fewer), `ds=none` has none.
const WITH_STATISTICS: [&str; 4] = ["2024-01-01", "été", "日本", "x y"];

fn state_with_statistics() -> Arc<ServerState> {
    let store = super::memory_store_with_db();
    let field = |name: &str, type_name: &str| engine::FieldSchema {
        name: name.into(),
        type_name: type_name.into(),
        comment: None,
    };
    let cols = COLUMNS
        .iter()
        .map(|(name, type_name, _)| field(name, type_name))
        .collect();
    store
        .create_table(engine::Table {
            table_name: "t".into(),
            db_name: "db".into(),
            cat_name: "hive".into(),
            table_type: Some("MANAGED_TABLE".into()),
            sd: Some(engine::StorageDescriptor {
                cols,
                num_buckets: -1,
                ..engine::StorageDescriptor::default()
            }),
            partition_keys: vec![field("ds", "string")],
            write_id: -1,
            ..engine::Table::default()
        })
        .unwrap();
    let partitions = WITH_STATISTICS
        .iter()
        .chain(&["none"])
        .map(|value| engine::Partition {
            values: vec![value.to_string()],
            ..engine::Partition::default()
        })
        .collect();
    let added = engine::AddPartitionsOptions::default();
    store
        .add_partitions("hive", "db", "t", partitions, &added)
        .unwrap();
    let statistics = WITH_STATISTICS
        .iter()
        .enumerate()
        .map(|(index, value)| {
            let columns = COLUMNS.iter().skip(index % 3);
            let stats = columns.map(|(name, type_name, kind)| {
                let mut stats = ColumnStatistics::new(*name, *type_name, *kind);
                let (low, high) = bounds(*kind).swap_remove(3);
                (stats.low_value, stats.high_value) = (low, high);
                stats.num_nulls = index as i64;
                stats.num_distinct_values = 5;
                stats.max_length = 9;
                stats.avg_length = 2.5;
                stats.num_trues = 4;
                stats.num_falses = 1;
                stats
            });
            (format!("ds={value}"), stats.collect())
        })
        .collect();
    let written = engine::StatsWriteOptions::default();
    store
        .update_partition_column_statistics("hive", "db", "t", statistics, &written)
        .unwrap();
    Arc::new(ServerState::new(store))
}

fn session(state: &Arc<ServerState>) -> Session {
    Session::new(Arc::clone(state), "127.0.0.1:9083".parse().unwrap())
}

/// A `get_partitions_statistics_req` call of `request`.
fn call(request: &PartitionsStatsRequest, protocol: Protocol) -> Vec<u8> {
    let mut message = Vec::new();
    let mut writer = output(protocol, &mut message);
    let o = &mut *writer;
    let header = TMessageIdentifier::new("get_partitions_statistics_req", TMessageType::Call, 7);
    o.write_message_begin(&header).unwrap();
    o.write_struct_begin(&TStructIdentifier::new("args"))
        .unwrap();
    o.write_field_begin(&TFieldIdentifier::new("request", TType::Struct, 1))
        .unwrap();
    request.write_to_out_protocol(o).unwrap();
    o.write_field_end().unwrap();
    o.write_field_stop().unwrap();
    o.write_struct_end().unwrap();
    o.write_message_end().unwrap();
    o.flush().unwrap();
    drop(writer);
    message
}

/// The call answered directly: the reply, or `None` when declined (nothing written then).
fn direct_reply(session: &Session, message: &[u8], protocol: Protocol) -> Option<Vec<u8>> {
    let mut input = input(protocol, message);
    let header = input.read_message_begin().unwrap();
    let method = "get_partitions_statistics_req";
    let mut reply = Vec::new();
    let answer = super::answer(
        method,
        header.sequence_number,
        message,
        &mut *input,
        protocol,
        &mut reply,
        session,
    )
    .unwrap();
    match answer {
        Answer::Written | Answer::Failed => Some(reply),
        Answer::Declined => {
            assert!(reply.is_empty(), "a declined call wrote {reply:?}");
            None
        }
    }
}

/// The call answered by the generated processor and `calls::stats`.
fn generated_reply(session: Session, message: &[u8], protocol: Protocol) -> Vec<u8> {
    let processor = ThriftHiveMetastoreSyncProcessor::new(Adapter(Arc::new(session)));
    let mut reply = Vec::new();
    processor
        .process(
            &mut *input(protocol, message),
            &mut *output(protocol, &mut reply),
        )
        .unwrap();
    reply
}

fn request(table: &str, columns: &[&str], partitions: &[&str]) -> PartitionsStatsRequest {
    let strings = |values: &[&str]| values.iter().map(|value| value.to_string()).collect();
    PartitionsStatsRequest::new(
        "db".to_string(),
        table.to_string(),
        strings(columns),
        strings(partitions),
        None,
        None,
        None,
    )
}

#[test]
fn replies_are_the_generated_processors() {
    let state = state_with_statistics();
    let every_column: Vec<&str> = COLUMNS.iter().map(|(name, ..)| *name).collect();
    let requests = [
        // Many partitions and kinds; a partition without statistics and one that does not
        // exist left out; duplicates, also in other case, answered once.
        request(
            "t",
            &every_column,
            &[
                "ds=日本",
                "ds=2024-01-01",
                "ds=none",
                "ds=nope",
                "DS=été",
                "ds=日本",
                "ds=x y",
            ],
        ),
        request(
            "t",
            &["TS", "flag", "dec", "missing"],
            &["ds=été", "ds=x y"],
        ),
        // An empty map: no statistics, no partitions, no columns.
        request("t", &every_column, &["ds=none"]),
        request("t", &every_column, &[]),
        request("t", &[], &["ds=été"]),
    ];
    // What the first request finds: every partition with statistics, each once, by name.
    let found = crate::calls::stats::get_partitions_req(&session(&state), requests[0].clone());
    let counts: Vec<(String, usize)> = found
        .unwrap()
        .part_stats
        .into_iter()
        .map(|(name, stats)| (name, stats.len()))
        .collect();
    let expected = [
        ("ds=2024-01-01", 8),
        ("ds=x y", 8),
        ("ds=été", 7),
        ("ds=日本", 6),
    ];
    let expected: Vec<(String, usize)> = expected
        .iter()
        .map(|(name, count)| (name.to_string(), *count))
        .collect();
    assert_eq!(counts, expected);
    for request in &requests {
        for protocol in PROTOCOLS {
            let message = call(request, protocol);
            let direct = direct_reply(&session(&state), &message, protocol).expect("answered");
            let generated = generated_reply(session(&state), &message, protocol);
            assert_eq!(direct, generated, "{protocol:?} {request:?}");
        }
    }
}

#[test]
fn errors_are_answered_as_the_generated_processor_answers_them() {
    let state = state_with_statistics();
    for table in ["nope", ""] {
        for protocol in PROTOCOLS {
            let message = call(&request(table, &["id"], &["ds=été"]), protocol);
            let direct = direct_reply(&session(&state), &message, protocol);
            let generated = generated_reply(session(&state), &message, protocol);
            assert_eq!(direct, Some(generated), "{table:?}");
        }
    }
}
