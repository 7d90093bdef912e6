//! The direct decoder of `add_partitions(_req)` against the generated one: the same random
//! requests, written by the generated code, read both ways, must give the same partitions,
//! table and options — or be declined.

use std::collections::BTreeMap;

use hivestore_idl::hive_metastore as idl;
use proptest::prelude::*;
use thrift::protocol::{
    TBinaryInputProtocol, TBinaryOutputProtocol, TFieldIdentifier, TInputProtocol, TListIdentifier,
    TMessageIdentifier, TMessageType, TOutputProtocol, TSerializable, TStructIdentifier, TType,
};

use super::add_partitions::{decode, decode_call, Request};
use super::wire_reader::{Pass, Unusual, WireLimits, UNIT_READS_MAX};
use crate::calls::partitions::{PartitionsToAdd, TableName};
use crate::convert::partition_from_idl;
use crate::limits::Limits;
use crate::message::{Arriving, ReadError};

fn text() -> impl Strategy<Value = String> {
    prop_oneof![
        "[a-z_/=]{0,12}",
        Just(String::new()),
        Just(" ".to_string()),
        "\\PC{0,6}"
    ]
}

fn texts() -> impl Strategy<Value = Vec<String>> {
    prop::collection::vec(text(), 0..4)
}

fn text_map() -> impl Strategy<Value = BTreeMap<String, String>> {
    prop::collection::btree_map(text(), text(), 0..4)
}

fn column() -> impl Strategy<Value = idl::FieldSchema> {
    (
        proptest::option::of(text()),
        proptest::option::of(text()),
        proptest::option::of(text()),
    )
        .prop_map(|(name, type_, comment)| idl::FieldSchema {
            name,
            type_,
            comment,
        })
}

fn serde_info() -> impl Strategy<Value = idl::SerDeInfo> {
    (
        proptest::option::of(text()),
        proptest::option::of(text()),
        proptest::option::of(text_map()),
        proptest::option::of(text()),
        proptest::option::of(0i32..4),
    )
        .prop_map(
            |(name, library, parameters, description, kind)| idl::SerDeInfo {
                name,
                serialization_lib: library,
                parameters,
                description,
                serializer_class: None,
                deserializer_class: kind.map(|kind| format!("class{kind}")),
                serde_type: kind.map(idl::SerdeType::from),
            },
        )
}

fn skewed_info() -> impl Strategy<Value = idl::SkewedInfo> {
    (
        proptest::option::of(texts()),
        proptest::option::of(prop::collection::vec(texts(), 0..3)),
        proptest::option::of(prop::collection::btree_map(texts(), text(), 0..3)),
    )
        .prop_map(|(names, values, locations)| idl::SkewedInfo {
            skewed_col_names: names,
            skewed_col_values: values,
            skewed_col_value_location_maps: locations,
        })
}

fn descriptor() -> impl Strategy<Value = idl::StorageDescriptor> {
    let columns = proptest::option::of(prop::collection::vec(column(), 0..6));
    let formats = (proptest::option::of(text()), proptest::option::of(text()));
    let orders = proptest::option::of(prop::collection::vec(
        (proptest::option::of(text()), proptest::option::of(0i32..2))
            .prop_map(|(col, order)| idl::Order { col, order }),
        0..3,
    ));
    let flags = (
        proptest::option::of(any::<bool>()),
        proptest::option::of(any::<i32>()),
        proptest::option::of(any::<bool>()),
    );
    let parts = (
        proptest::option::of(serde_info()),
        proptest::option::of(texts()),
        proptest::option::of(text_map()),
        proptest::option::of(skewed_info()),
    );
    (
        columns,
        proptest::option::of(text()),
        formats,
        orders,
        flags,
        parts,
    )
        .prop_map(
            |(cols, location, (input_format, output_format), sort_cols, flags, parts)| {
                idl::StorageDescriptor {
                    cols,
                    location,
                    input_format,
                    output_format,
                    compressed: flags.0,
                    num_buckets: flags.1,
                    serde_info: parts.0,
                    bucket_cols: parts.1,
                    sort_cols,
                    parameters: parts.2,
                    skewed_info: parts.3,
                    stored_as_sub_directories: flags.2,
                }
            },
        )
}

/// A partition; its descriptor is the request's shared one with its own location (as clients
/// send them), one of its own, or none.
fn partition(shared: idl::StorageDescriptor) -> impl Strategy<Value = idl::Partition> {
    let descriptor = prop_oneof![
        3 => proptest::option::of(text()).prop_map(move |location| Some(idl::StorageDescriptor {
            location,
            ..shared.clone()
        })),
        1 => proptest::option::of(descriptor()),
    ];
    let names = (
        proptest::option::of(text()),
        proptest::option::of(text()),
        proptest::option::of(text()),
    );
    let numbers = (
        proptest::option::of(any::<i32>()),
        proptest::option::of(any::<i32>()),
        proptest::option::of(any::<i64>()),
        proptest::option::of(any::<bool>()),
    );
    (
        proptest::option::of(texts()),
        names,
        numbers,
        descriptor,
        proptest::option::of(text_map()),
    )
        .prop_map(|(values, names, numbers, sd, parameters)| idl::Partition {
            values,
            db_name: names.0,
            table_name: names.1,
            create_time: numbers.0,
            last_access_time: numbers.1,
            sd,
            parameters,
            privileges: None,
            cat_name: names.2,
            write_id: numbers.2,
            is_stats_compliant: numbers.3,
            col_stats: None,
            file_metadata: None,
        })
}

fn partitions() -> impl Strategy<Value = Vec<idl::Partition>> {
    descriptor().prop_flat_map(|shared| prop::collection::vec(partition(shared), 0..6))
}

/// A call message with the arguments `arguments` writes, as a client writes it.
fn call(method: &str, arguments: impl FnOnce(&mut dyn TOutputProtocol)) -> Vec<u8> {
    let mut bytes = Vec::new();
    let mut o = TBinaryOutputProtocol::new(&mut bytes, true);
    o.write_message_begin(&TMessageIdentifier::new(method, TMessageType::Call, 3))
        .unwrap();
    o.write_struct_begin(&TStructIdentifier::new("args"))
        .unwrap();
    arguments(&mut o);
    o.write_field_stop().unwrap();
    o.write_struct_end().unwrap();
    o.write_message_end().unwrap();
    bytes
}

fn add_partitions_call(partitions: &[idl::Partition]) -> Vec<u8> {
    call("add_partitions", |o| {
        o.write_field_begin(&TFieldIdentifier::new("new_parts", TType::List, 1))
            .unwrap();
        let list = TListIdentifier::new(TType::Struct, partitions.len() as i32);
        o.write_list_begin(&list).unwrap();
        for partition in partitions {
            partition.write_to_out_protocol(o).unwrap();
        }
        o.write_list_end().unwrap();
        o.write_field_end().unwrap();
    })
}

fn add_partitions_req_call(request: &idl::AddPartitionsRequest) -> Vec<u8> {
    call("add_partitions_req", |o| {
        o.write_field_begin(&TFieldIdentifier::new("request", TType::Struct, 1))
            .unwrap();
        request.write_to_out_protocol(o).unwrap();
        o.write_field_end().unwrap();
    })
}

/// Reads the arguments after the header of `message` with the generated code.
fn generated_input(message: &[u8]) -> TBinaryInputProtocol<&[u8]> {
    let mut input = TBinaryInputProtocol::new(message, true);
    input.read_message_begin().unwrap();
    input.read_struct_begin().unwrap();
    input.read_field_begin().unwrap();
    input
}

/// The partitions of an `add_partitions` call as the generated code reads them, if it can.
fn generated_partitions(message: &[u8]) -> Option<Vec<hivestore_engine::NewPartition>> {
    let mut input = TBinaryInputProtocol::new(message, true);
    input.read_message_begin().ok()?;
    input.read_struct_begin().ok()?;
    input.read_field_begin().ok()?;
    let list = input.read_list_begin().ok()?;
    (0..list.size)
        .map(|_| idl::Partition::read_from_in_protocol(&mut input).ok())
        .map(|p| p.map(|p| partition_from_idl(p, "").into()))
        .collect()
}

fn assert_same(direct: Request, expected: PartitionsToAdd, need_result: Option<bool>) {
    assert_eq!(direct.batch.partitions, expected.partitions);
    assert_eq!(direct.batch.table, expected.table);
    assert_eq!(direct.batch.if_not_exists, expected.if_not_exists);
    assert_eq!(direct.need_result, need_result);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn add_partitions_decodes_as_the_generated_code(partitions in partitions()) {
        let message = add_partitions_call(&partitions);
        let mut input = generated_input(&message);
        let list = input.read_list_begin().unwrap();
        let generated: Vec<idl::Partition> = (0..list.size)
            .map(|_| idl::Partition::read_from_in_protocol(&mut input).unwrap())
            .collect();
        prop_assert_eq!(&generated, &partitions);
        let expected = PartitionsToAdd {
            table: None,
            partitions: generated.into_iter().map(|p| partition_from_idl(p, "").into()).collect(),
            if_not_exists: false,
        };
        let direct = decode("add_partitions", &message).expect("an ordinary request is decoded");
        assert_same(direct, expected, None);
    }

    #[test]
    fn add_partitions_req_decodes_as_the_generated_code(
        parts in partitions(),
        names in (text(), text(), proptest::option::of(text())),
        flags in (any::<bool>(), proptest::option::of(any::<bool>())),
        write_ids in proptest::option::of(text()),
    ) {
        let request = idl::AddPartitionsRequest::new(
            names.0, names.1, parts, flags.0, flags.1, names.2, write_ids, None, None, None,
        );
        let message = add_partitions_req_call(&request);
        let mut input = generated_input(&message);
        let generated = idl::AddPartitionsRequest::read_from_in_protocol(&mut input).unwrap();
        prop_assert_eq!(&generated, &request);
        let need_result = generated.need_result.unwrap_or(true) && !generated.parts.is_empty();
        let table = TableName::request(generated.cat_name, generated.db_name, generated.tbl_name);
        let expected = PartitionsToAdd {
            table: Some(table),
            partitions: generated.parts.into_iter().map(|p| partition_from_idl(p, "").into()).collect(),
            if_not_exists: generated.if_not_exists,
        };
        let direct = decode("add_partitions_req", &message).expect("an ordinary request");
        assert_same(direct, expected, Some(need_result));
    }

    #[test]
    fn a_cut_or_damaged_request_is_declined_never_misread(
        partitions in partitions(),
        cut in any::<prop::sample::Index>(),
        flip in any::<prop::sample::Index>(),
    ) {
        let message = add_partitions_call(&partitions);
        let cut = cut.index(message.len());
        // The decoder only ever sees whole messages; a cut one must still not panic.
        let _ = decode("add_partitions", &message[..cut]);
        let mut damaged = message.clone();
        let at = flip.index(damaged.len());
        damaged[at] ^= 0xff;
        if let (Ok(direct), Some(generated)) = (decode("add_partitions", &damaged), generated_partitions(&damaged)) {
            // What both decoders accept, they read the same way.
            prop_assert_eq!(direct.batch.partitions, generated);
        }
    }
}

#[test]
fn privileges_are_left_to_the_generated_decoder() {
    let partition = idl::Partition {
        privileges: Some(idl::PrincipalPrivilegeSet {
            user_privileges: Some(BTreeMap::new()),
            group_privileges: None,
            role_privileges: None,
        }),
        ..idl::Partition::default()
    };
    let message = add_partitions_call(&[partition]);
    assert_eq!(decode("add_partitions", &message).err(), Some(Unusual));
}

/// A message arriving in fragments that end at `cuts`, as from a socket; then nothing more.
struct Trickle {
    bytes: Vec<u8>,
    cuts: Vec<usize>,
    arrived: usize,
}

impl Trickle {
    fn new(bytes: Vec<u8>, mut cuts: Vec<usize>) -> Self {
        cuts.sort_unstable();
        let first = cuts.first().copied().unwrap_or(bytes.len());
        Trickle {
            bytes,
            cuts,
            arrived: first,
        }
    }
}

impl Arriving for Trickle {
    fn arrived(&self) -> &[u8] {
        &self.bytes[..self.arrived]
    }

    fn arrive_more(&mut self) -> Result<(), ReadError> {
        if self.arrived == self.bytes.len() {
            return Err(ReadError::Truncated);
        }
        let arrived = self.arrived;
        self.arrived = self
            .cuts
            .iter()
            .copied()
            .find(|cut| *cut > arrived)
            .unwrap_or(self.bytes.len());
        Ok(())
    }
}

/// Reads `message` arriving in fragments, followed by the start of another; where it ended.
fn decode_trickled(method: &str, message: &[u8], cuts: &[prop::sample::Index]) -> (Request, usize) {
    let mut stream = message.to_vec();
    stream.extend_from_slice(&message[..message.len().min(9)]);
    let cuts = cuts.iter().map(|cut| cut.index(stream.len())).collect();
    let mut trickle = Trickle::new(stream, cuts);
    let mut pass = Pass::new(&mut trickle, WireLimits::of(&Limits::default()));
    let (sequence, request) = decode_call(method, &mut pass).expect("read as it arrives");
    assert_eq!(sequence, 3);
    (request, pass.position())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn add_partitions_arriving_in_fragments_reads_as_whole(
        partitions in partitions(),
        cuts in prop::collection::vec(any::<prop::sample::Index>(), 0..12),
    ) {
        let message = add_partitions_call(&partitions);
        let whole = decode("add_partitions", &message);
        prop_assume!(whole.is_ok());
        let (arrived, end) = decode_trickled("add_partitions", &message, &cuts);
        prop_assert_eq!(end, message.len(), "the message ends where it ends, whatever follows");
        let whole = whole.unwrap();
        prop_assert_eq!(arrived.batch.partitions, whole.batch.partitions);
        prop_assert_eq!(arrived.need_result, whole.need_result);
    }

    #[test]
    fn add_partitions_req_arriving_in_fragments_reads_as_whole(
        partitions in partitions(),
        if_not_exists in any::<bool>(),
        cuts in prop::collection::vec(any::<prop::sample::Index>(), 0..12),
    ) {
        let request = idl::AddPartitionsRequest {
            db_name: "db".to_string(),
            tbl_name: "t".to_string(),
            parts: partitions,
            if_not_exists,
            need_result: Some(true),
            cat_name: Some("hive".to_string()),
            valid_write_id_list: Some("w".to_string()),
            skip_column_schema_for_partition: Some(false),
            partition_col_schema: None,
            environment_context: None,
        };
        let message = add_partitions_req_call(&request);
        let whole = decode("add_partitions_req", &message);
        prop_assume!(whole.is_ok());
        let (arrived, end) = decode_trickled("add_partitions_req", &message, &cuts);
        prop_assert_eq!(end, message.len());
        let whole = whole.unwrap();
        prop_assert_eq!(arrived.batch.partitions, whole.batch.partitions);
        prop_assert_eq!(arrived.batch.table, whole.batch.table);
        prop_assert_eq!(arrived.batch.if_not_exists, whole.batch.if_not_exists);
        prop_assert_eq!(arrived.need_result, whole.need_result);
    }
}

#[test]
fn a_request_ending_before_its_end_is_broken_not_declined() {
    let partition = idl::Partition {
        values: Some(vec!["2024-01-01".to_string()]),
        ..idl::Partition::default()
    };
    let message = add_partitions_call(&[partition.clone(), partition]);
    let mut trickle = Trickle::new(message[..message.len() - 3].to_vec(), vec![7, 40]);
    let mut pass = Pass::new(&mut trickle, WireLimits::of(&Limits::default()));
    assert_eq!(
        decode_call("add_partitions", &mut pass).err(),
        Some(Unusual)
    );
    assert!(matches!(pass.take_broken(), Some(ReadError::Truncated)));
}

#[test]
fn lengths_past_the_limits_are_left_to_the_walk_which_refuses_them() {
    let partition = idl::Partition {
        values: Some(vec!["x".repeat(100)]),
        ..idl::Partition::default()
    };
    let message = add_partitions_call(&[partition.clone(), partition]);
    for limits in [
        Limits {
            string_bytes_max: 99,
            ..Limits::default()
        },
        Limits {
            container_elements_max: 1,
            ..Limits::default()
        },
    ] {
        let mut arriving: &[u8] = &message;
        let mut pass = Pass::new(&mut arriving, WireLimits::of(&limits));
        assert_eq!(
            decode_call("add_partitions", &mut pass).err(),
            Some(Unusual)
        );
        assert!(pass.take_broken().is_none(), "declined, not broken");
    }
}

#[test]
fn a_unit_arriving_in_too_many_fragments_is_left_to_the_walk() {
    let partition = idl::Partition {
        values: Some(vec!["2024-01-01".to_string(); 8]),
        ..idl::Partition::default()
    };
    let message = add_partitions_call(&[partition]);
    // A byte a read: the header, and then the partition, run out more often than a unit may.
    let cuts = (1..message.len()).collect();
    let mut trickle = Trickle::new(message.clone(), cuts);
    let mut pass = Pass::new(&mut trickle, WireLimits::of(&Limits::default()));
    assert_eq!(
        decode_call("add_partitions", &mut pass).err(),
        Some(Unusual)
    );
    assert!(pass.take_broken().is_none(), "declined, not broken");
    // In fewer fragments than that, the same message is read as it arrives.
    let cuts = (1..UNIT_READS_MAX)
        .map(|index| index * message.len() / UNIT_READS_MAX)
        .collect();
    let mut trickle = Trickle::new(message, cuts);
    let mut pass = Pass::new(&mut trickle, WireLimits::of(&Limits::default()));
    assert!(decode_call("add_partitions", &mut pass).is_ok());
}
