//! Stored (archived) values written straight to the wire, with the same bytes the generated
//! code writes for the IDL struct that `convert.rs` would build from them.
//!
//! Hot parts (names, columns, storage, parameters) are written field by field from the
//! archive. Rare parts (privileges, creation metadata, file metadata, the object dictionary,
//! skew information) are deserialised and go through `convert.rs` and the generated writer:
//! one conversion for them, and they cost only where they exist.

use std::collections::hash_map::Entry;
use std::collections::{BTreeMap, HashMap};

use hivestore_engine as engine;
use hivestore_idl::hive_metastore as idl;
use rkyv::rancor::Error as RkyvError;
use rkyv::string::ArchivedString;
use rkyv::{Archived, Deserialize};
use thrift::protocol::{TSerializable, TType};

use super::wire::Encoder;
use crate::convert;
use crate::detect::Protocol;

type StringMap = Archived<BTreeMap<String, String>>;

fn optional_string_field(o: &mut Encoder<'_>, id: i16, value: &Archived<Option<String>>) {
    if let Some(value) = value.as_ref() {
        o.string_field(id, value.as_str());
    }
}

fn string_map_field(o: &mut Encoder<'_>, id: i16, map: &StringMap) -> thrift::Result<()> {
    o.field(TType::Map, id);
    o.map_begin(TType::String, TType::String, map.len())?;
    for (key, value) in map.iter() {
        o.string(key.as_str());
        o.string(value.as_str());
    }
    Ok(())
}

fn string_list_field(o: &mut Encoder<'_>, id: i16, list: &[ArchivedString]) -> thrift::Result<()> {
    o.field(TType::List, id);
    o.list_begin(TType::String, list.len())?;
    for value in list {
        o.string(value.as_str());
    }
    Ok(())
}

/// Field `id` holding a rare part: deserialised, converted as `convert.rs` does, written by
/// the generated code.
fn owned_struct_field<A, T, W>(
    o: &mut Encoder<'_>,
    id: i16,
    archived: &A,
    to_idl: impl FnOnce(T) -> W,
) -> thrift::Result<()>
where
    A: Deserialize<T, rkyv::rancor::Strategy<rkyv::de::Pool, RkyvError>>,
    W: TSerializable,
{
    let owned: T = rkyv::deserialize::<T, RkyvError>(archived).map_err(|error| {
        thrift::Error::Application(thrift::ApplicationError::new(
            thrift::ApplicationErrorKind::InternalError,
            format!("a stored value does not deserialise: {error}"),
        ))
    })?;
    o.generated_struct_field(id, &to_idl(owned))
}

/// A column list (`list<FieldSchema>`) as field `id`.
fn columns_field(
    o: &mut Encoder<'_>,
    id: i16,
    columns: &[Archived<engine::FieldSchema>],
) -> thrift::Result<()> {
    o.field(TType::List, id);
    o.list_begin(TType::Struct, columns.len())?;
    for column in columns {
        o.struct_begin();
        o.string_field(1, column.name.as_str());
        o.string_field(2, column.type_name.as_str());
        optional_string_field(o, 3, &column.comment);
        o.struct_end();
    }
    Ok(())
}

fn serde_field(
    o: &mut Encoder<'_>,
    id: i16,
    serde: &Archived<engine::SerDeInfo>,
) -> thrift::Result<()> {
    o.field(TType::Struct, id);
    o.struct_begin();
    optional_string_field(o, 1, &serde.name);
    optional_string_field(o, 2, &serde.serialization_lib);
    string_map_field(o, 3, &serde.parameters)?;
    optional_string_field(o, 4, &serde.description);
    optional_string_field(o, 5, &serde.serializer_class);
    optional_string_field(o, 6, &serde.deserializer_class);
    if let Some(kind) = serde.serde_type.as_ref() {
        let kind = match kind {
            Archived::<engine::SerdeType>::Hive => idl::SerdeType::HIVE,
            Archived::<engine::SerdeType>::SchemaRegistry => idl::SerdeType::SCHEMA_REGISTRY,
        };
        o.i32_field(7, kind.0);
    }
    o.struct_end();
    Ok(())
}

/// A storage descriptor as field `id`, as `convert::storage_to_idl` builds it. `location`
/// replaces the descriptor's own (partitions keep theirs apart from a shared descriptor).
pub(crate) fn storage_field(
    o: &mut Encoder<'_>,
    id: i16,
    sd: &Archived<engine::StorageDescriptor>,
    location: Option<&str>,
) -> thrift::Result<()> {
    o.field(TType::Struct, id);
    o.struct_begin();
    columns_field(o, 1, &sd.cols)?;
    if let Some(location) = location {
        o.string_field(2, location);
    }
    storage_fields_after_location(o, sd)?;
    o.struct_end();
    Ok(())
}

/// The fields of a storage descriptor after its location (3 to 12).
fn storage_fields_after_location(
    o: &mut Encoder<'_>,
    sd: &Archived<engine::StorageDescriptor>,
) -> thrift::Result<()> {
    optional_string_field(o, 3, &sd.input_format);
    optional_string_field(o, 4, &sd.output_format);
    o.bool_field(5, sd.compressed);
    o.i32_field(6, sd.num_buckets.to_native());
    if let Some(serde) = sd.serde_info.as_ref() {
        serde_field(o, 7, serde)?;
    }
    string_list_field(o, 8, &sd.bucket_cols)?;
    o.field(TType::List, 9);
    o.list_begin(TType::Struct, sd.sort_cols.len())?;
    for order in sd.sort_cols.iter() {
        o.struct_begin();
        o.string_field(1, order.col.as_str());
        o.i32_field(2, order.order.to_native());
        o.struct_end();
    }
    string_map_field(o, 10, &sd.parameters)?;
    if let Some(skewed) = sd.skewed_info.as_ref() {
        owned_struct_field(o, 11, skewed, convert::skewed_to_idl)?;
    }
    if let Some(value) = sd.stored_as_sub_directories.as_ref() {
        o.bool_field(12, *value);
    }
    Ok(())
}

/// A shared storage descriptor encoded once for a listing: the partitions that share it copy
/// these bytes, and only their locations are written per partition.
pub(crate) struct EncodedDescriptor {
    /// Field 1 (the columns); none when they were left unset.
    columns: Option<Vec<u8>>,
    /// Fields 3 to 12, encoded after a location (field 2)...
    rest_after_location: Vec<u8>,
    /// ... and after the columns, for partitions without a location.
    rest_after_columns: Vec<u8>,
}

/// The id of the last field in [`storage_fields_after_location`] (compact protocol sends
/// field ids as deltas, so spliced bytes must say where they end).
const LAST_STORAGE_FIELD: i16 = 12;

impl EncodedDescriptor {
    /// `sd`, its columns written unless `columns_unset`.
    pub(crate) fn new(
        sd: &Archived<engine::StorageDescriptor>,
        columns_unset: bool,
        protocol: Protocol,
    ) -> thrift::Result<Self> {
        let columns = if columns_unset {
            None
        } else {
            let mut columns = Vec::new();
            columns_field(&mut Encoder::new(&mut columns, protocol), 1, &sd.cols)?;
            Some(columns)
        };
        let mut rest_after_location = Vec::new();
        let o = &mut Encoder::continuing(&mut rest_after_location, protocol, 2);
        storage_fields_after_location(o, sd)?;
        let mut rest_after_columns = Vec::new();
        let last_id = if columns_unset { 0 } else { 1 };
        let o = &mut Encoder::continuing(&mut rest_after_columns, protocol, last_id);
        storage_fields_after_location(o, sd)?;
        Ok(EncodedDescriptor {
            columns,
            rest_after_location,
            rest_after_columns,
        })
    }

    /// The descriptor `descriptor_id` with `location` as field `id`; its encoded parts are
    /// shared pieces of the partitions ([`Encoder::shared`]).
    fn write_field(
        &self,
        o: &mut Encoder<'_>,
        id: i16,
        descriptor_id: u64,
        location: Option<&str>,
    ) {
        let key = |part| engine::PieceKey {
            object: descriptor_id,
            part,
        };
        o.field(TType::Struct, id);
        o.struct_begin();
        if let Some(columns) = &self.columns {
            o.shared(key(0), columns, 1);
        }
        match location {
            Some(location) => {
                o.string_field(2, location);
                o.shared(key(1), &self.rest_after_location, LAST_STORAGE_FIELD);
            }
            None => o.shared(key(2), &self.rest_after_columns, LAST_STORAGE_FIELD),
        }
        o.struct_end();
    }
}

/// Writes the partitions of one listing, each shared descriptor encoded once. Of the table,
/// only its names are written (the engine keeps encodings by them: `engine::PartitionSink`).
pub(crate) struct PartitionWriter {
    /// The table's database, name and catalog.
    db_name: String,
    table_name: String,
    cat_name: String,
    protocol: Protocol,
    descriptors: HashMap<u64, EncodedDescriptor>,
}

impl PartitionWriter {
    pub(crate) fn new(table: &engine::Table, protocol: Protocol) -> Self {
        PartitionWriter {
            db_name: table.db_name.clone(),
            table_name: table.table_name.clone(),
            cat_name: table.cat_name.clone(),
            protocol,
            descriptors: HashMap::new(),
        }
    }

    /// `partition` as `convert::partition_to_idl` builds it, as a whole struct.
    pub(crate) fn write(
        &mut self,
        o: &mut Encoder<'_>,
        partition: &engine::PartitionView<'_>,
    ) -> thrift::Result<()> {
        let record = partition.record();
        o.struct_begin();
        o.field(TType::List, 1);
        o.list_begin(TType::String, partition.values().len())?;
        for value in partition.values() {
            o.string(value);
        }
        o.string_field(2, &self.db_name);
        o.string_field(3, &self.table_name);
        o.i32_field(4, record.create_time.to_native());
        o.i32_field(5, record.last_access_time.to_native());
        if let Some(id) = partition.descriptor_id() {
            let descriptor = match self.descriptors.entry(id) {
                Entry::Occupied(entry) => entry.into_mut(),
                Entry::Vacant(entry) => {
                    let sd = partition
                        .descriptor()
                        .map_err(engine_error)?
                        .ok_or_else(|| {
                            engine_error(engine::Error::Internal(format!(
                                "partition {:?} names descriptor {id} but has none",
                                partition.values()
                            )))
                        })?;
                    let columns_unset = partition.columns_unset();
                    entry.insert(EncodedDescriptor::new(sd, columns_unset, self.protocol)?)
                }
            };
            let location = record.location.as_ref().map(ArchivedString::as_str);
            descriptor.write_field(o, 6, id, location);
        }
        string_map_field(o, 7, &record.parameters)?;
        if let Some(privileges) = record.privileges.as_ref() {
            owned_struct_field(o, 8, privileges, convert::privileges_to_idl)?;
        }
        o.string_field(9, &self.cat_name);
        o.i64_field(10, record.write_id.to_native());
        if let Some(metadata) = record.file_metadata.as_ref() {
            owned_struct_field(o, 13, metadata, convert::file_metadata_to_idl)?;
        }
        o.struct_end();
        Ok(())
    }
}

/// An engine failure while writing (a corrupt stored value): the call fails as the generated
/// processor fails a handler error it cannot declare.
pub(crate) fn engine_error(error: engine::Error) -> thrift::Error {
    crate::errors::undeclared(error.to_string())
}

/// A table as `convert::table_to_idl` builds it, as a whole struct (no field header).
pub(crate) fn table(o: &mut Encoder<'_>, table: &Archived<engine::Table>) -> thrift::Result<()> {
    o.struct_begin();
    o.string_field(1, table.table_name.as_str());
    o.string_field(2, table.db_name.as_str());
    optional_string_field(o, 3, &table.owner);
    o.i32_field(4, table.create_time.to_native());
    o.i32_field(5, table.last_access_time.to_native());
    o.i32_field(6, table.retention.to_native());
    if let Some(sd) = table.sd.as_ref() {
        let location = sd.location.as_ref().map(ArchivedString::as_str);
        storage_field(o, 7, sd, location)?;
    }
    columns_field(o, 8, &table.partition_keys)?;
    string_map_field(o, 9, &table.parameters)?;
    optional_string_field(o, 10, &table.view_original_text);
    optional_string_field(o, 11, &table.view_expanded_text);
    optional_string_field(o, 12, &table.table_type);
    if let Some(privileges) = table.privileges.as_ref() {
        owned_struct_field(o, 13, privileges, convert::privileges_to_idl)?;
    }
    if table.temporary {
        o.bool_field(14, true);
    }
    o.bool_field(15, table.rewrite_enabled.as_ref().copied().unwrap_or(false));
    if let Some(metadata) = table.creation_metadata.as_ref() {
        owned_struct_field(o, 16, metadata, convert::creation_metadata_to_idl)?;
    }
    o.string_field(17, table.cat_name.as_str());
    let owner_type = match table.owner_type.as_ref() {
        None | Some(Archived::<engine::PrincipalType>::User) => engine::PrincipalType::User,
        Some(Archived::<engine::PrincipalType>::Role) => engine::PrincipalType::Role,
        Some(Archived::<engine::PrincipalType>::Group) => engine::PrincipalType::Group,
    };
    o.i32_field(18, convert::principal_type_to_idl(owner_type).0);
    o.i64_field(19, table.write_id.to_native());
    if let Some(access_type) = table.access_type.as_ref() {
        o.i8_field(22, *access_type);
    }
    if let Some(capabilities) = table.required_read_capabilities.as_ref() {
        string_list_field(o, 23, capabilities)?;
    }
    if let Some(capabilities) = table.required_write_capabilities.as_ref() {
        string_list_field(o, 24, capabilities)?;
    }
    o.i64_field(25, table.id.to_native());
    if let Some(metadata) = table.file_metadata.as_ref() {
        owned_struct_field(o, 26, metadata, convert::file_metadata_to_idl)?;
    }
    if let Some(dictionary) = table.dictionary.as_ref() {
        owned_struct_field(o, 27, dictionary, |values| idl::ObjectDictionary { values })?;
    }
    if let Some(txn_id) = table.txn_id.as_ref() {
        o.i64_field(28, txn_id.to_native());
    }
    o.struct_end();
    Ok(())
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use hivestore_engine as engine;
    use rkyv::rancor::Error as RkyvError;
    use thrift::protocol::{TBinaryOutputProtocol, TCompactOutputProtocol, TSerializable, TType};

    use super::Encoder;
    use crate::convert::table_to_idl;
    use crate::detect::Protocol;

    fn column(name: &str, type_name: &str, comment: Option<&str>) -> engine::FieldSchema {
        engine::FieldSchema {
            name: name.into(),
            type_name: type_name.into(),
            comment: comment.map(Into::into),
        }
    }

    fn grant(privilege: &str) -> engine::PrivilegeGrantInfo {
        engine::PrivilegeGrantInfo {
            privilege: privilege.into(),
            create_time: 7,
            grantor: "admin".into(),
            grantor_type: engine::PrincipalType::Role,
            grant_option: true,
        }
    }

    /// Every field of a table set, rare parts included.
    fn full_table() -> engine::Table {
        let parameters = BTreeMap::from([
            ("b".to_string(), "2".to_string()),
            ("a".to_string(), "1".to_string()),
            ("EXTERNAL".to_string(), "TRUE".to_string()),
        ]);
        engine::Table {
            table_name: "t".into(),
            db_name: "db".into(),
            owner: Some("alice".into()),
            create_time: 1_700_000_000,
            last_access_time: 3,
            retention: 4,
            sd: Some(engine::StorageDescriptor {
                cols: vec![
                    column("id", "bigint", Some("the key")),
                    column("name", "string", None),
                ],
                location: Some("memory:/w/db.db/t".into()),
                input_format: Some("in".into()),
                output_format: None,
                compressed: true,
                num_buckets: 8,
                serde_info: Some(engine::SerDeInfo {
                    name: Some("serde".into()),
                    serialization_lib: Some("lib".into()),
                    parameters: parameters.clone(),
                    description: Some("d".into()),
                    serializer_class: None,
                    deserializer_class: Some("de".into()),
                    serde_type: Some(engine::SerdeType::SchemaRegistry),
                }),
                bucket_cols: vec!["id".into()],
                sort_cols: vec![engine::Order {
                    col: "id".into(),
                    order: 1,
                }],
                parameters: parameters.clone(),
                skewed_info: Some(engine::SkewedInfo {
                    skewed_col_names: vec!["name".into()],
                    skewed_col_values: vec![vec!["x".into()]],
                    skewed_col_value_location_maps: vec![engine::SkewedValueLocation {
                        values: vec!["x".into()],
                        location: "memory:/w/x".into(),
                    }],
                }),
                stored_as_sub_directories: Some(false),
                columns_unset: false,
            }),
            partition_keys: vec![column("ds", "string", None), column("hr", "int", Some("h"))],
            parameters,
            view_original_text: Some("select 1".into()),
            view_expanded_text: Some("select 1".into()),
            table_type: Some("EXTERNAL_TABLE".into()),
            privileges: Some(engine::PrincipalPrivilegeSet {
                user_privileges: BTreeMap::from([("alice".into(), vec![grant("SELECT")])]),
                group_privileges: BTreeMap::new(),
                role_privileges: BTreeMap::from([("r".into(), vec![grant("ALL")])]),
            }),
            temporary: true,
            rewrite_enabled: Some(true),
            creation_metadata: Some(engine::CreationMetadata {
                cat_name: "hive".into(),
                db_name: "db".into(),
                tbl_name: "t".into(),
                tables_used: vec!["db.u".into()],
                valid_txn_list: Some("1:2".into()),
                materialization_time: Some(9),
                source_tables: None,
            }),
            cat_name: "hive".into(),
            owner_type: Some(engine::PrincipalType::Group),
            write_id: 12,
            access_type: Some(8),
            required_read_capabilities: Some(vec!["HIVEFULLACIDREAD".into()]),
            required_write_capabilities: Some(vec![]),
            id: 42,
            file_metadata: Some(engine::FileMetadata {
                metadata_type: 1,
                version: 2,
                data: vec![vec![1, 2, 3]],
            }),
            dictionary: Some(BTreeMap::from([("k".into(), vec![vec![0u8, 255]])])),
            txn_id: Some(77),
        }
    }

    /// A view: no storage descriptor, every optional part absent.
    fn bare_view() -> engine::Table {
        engine::Table {
            table_name: "v".into(),
            db_name: "db".into(),
            cat_name: "hive".into(),
            table_type: Some("VIRTUAL_VIEW".into()),
            write_id: -1,
            ..engine::Table::default()
        }
    }

    /// A table whose descriptor has no location, serde or skew.
    fn plain_table() -> engine::Table {
        engine::Table {
            sd: Some(engine::StorageDescriptor {
                cols: (0..20)
                    .map(|index| column(&format!("c{index}"), "int", None))
                    .collect(),
                num_buckets: -1,
                ..engine::StorageDescriptor::default()
            }),
            owner_type: Some(engine::PrincipalType::Role),
            ..bare_view()
        }
    }

    fn both_ways(table: &engine::Table, compact: bool) -> (Vec<u8>, Vec<u8>) {
        let archive = rkyv::to_bytes::<RkyvError>(table).unwrap();
        let archived = rkyv::access::<rkyv::Archived<engine::Table>, RkyvError>(&archive).unwrap();
        let protocol = if compact {
            Protocol::Compact
        } else {
            Protocol::Binary
        };
        let mut direct = Vec::new();
        super::table(&mut Encoder::new(&mut direct, protocol), archived).unwrap();
        let mut generated = Vec::new();
        let idl_table = table_to_idl(table.clone());
        if compact {
            idl_table.write_to_out_protocol(&mut TCompactOutputProtocol::new(&mut generated))
        } else {
            idl_table.write_to_out_protocol(&mut TBinaryOutputProtocol::new(&mut generated, true))
        }
        .unwrap();
        (direct, generated)
    }

    /// A store holding table `db.t` (partitioned by ds, hr) with partitions that share the
    /// table's descriptor, carry their own, lack a location, or carry every rare part.
    /// Appends `partitions` as the generated code writes their conversion.
    fn write_generated(partitions: &[engine::Partition], protocol: Protocol, out: &mut Vec<u8>) {
        for partition in partitions
            .iter()
            .cloned()
            .map(crate::convert::partition_to_idl)
        {
            match protocol {
                Protocol::Compact => {
                    partition.write_to_out_protocol(&mut TCompactOutputProtocol::new(&mut *out))
                }
                Protocol::Binary => partition
                    .write_to_out_protocol(&mut TBinaryOutputProtocol::new(&mut *out, true)),
            }
            .unwrap();
        }
    }

    fn store_with_partitions() -> engine::Store {
        let store = super::super::memory_store_with_db();
        let mut table = plain_table();
        table.table_name = "t".into();
        table.table_type = Some("MANAGED_TABLE".into());
        table.partition_keys = vec![column("ds", "string", None), column("hr", "int", None)];
        store.create_table(table).unwrap();
        let partition = |values: [&str; 2]| engine::Partition {
            values: values.iter().map(|value| value.to_string()).collect(),
            ..engine::Partition::default()
        };
        let mut own = partition(["b", "2"]);
        own.sd = full_table().sd;
        let mut bare = partition(["c", "3"]);
        bare.sd = Some(engine::StorageDescriptor {
            cols: vec![column("x", "int", Some("c"))],
            ..engine::StorageDescriptor::default()
        });
        // Columns left unset by the client: Hive answers them unset.
        let mut columnless = partition(["e", "5"]);
        columnless.sd = Some(engine::StorageDescriptor {
            columns_unset: true,
            ..full_table().sd.unwrap()
        });
        let mut rare = partition(["d", "4"]);
        rare.privileges = full_table().privileges;
        rare.file_metadata = full_table().file_metadata;
        rare.parameters = BTreeMap::from([("k".into(), "v".into())]);
        rare.write_id = 5;
        let partitions = vec![
            partition(["a", "1"]),
            own,
            bare,
            rare,
            partition(["a", "10"]),
            columnless,
        ];
        let options = engine::AddPartitionsOptions::default();
        store
            .add_partitions("hive", "db", "t", partitions, &options)
            .unwrap();
        store
    }

    #[test]
    fn partitions_are_written_as_the_generated_code_writes_their_conversion() {
        let store = store_with_partitions();
        let selection = engine::PartitionSelection::All;
        let views = store
            .partition_views("hive", "db", "t", selection, -1)
            .unwrap();
        let owned = store
            .list_partitions_selected("hive", "db", "t", selection, -1, false)
            .unwrap();
        assert_eq!(owned.len(), 6);
        assert!(owned
            .iter()
            .any(|partition| partition.sd.as_ref().unwrap().columns_unset));
        for protocol in [Protocol::Binary, Protocol::Compact] {
            let mut direct = Vec::new();
            let o = &mut Encoder::new(&mut direct, protocol);
            let mut writer = super::PartitionWriter::new(&views.table, protocol);
            for view in views.iter() {
                writer.write(o, &view.unwrap()).unwrap();
            }
            let mut generated = Vec::new();
            write_generated(&owned, protocol, &mut generated);
            assert_eq!(direct, generated, "{protocol:?}");
        }
    }

    /// The bytes the engine keeps and copies are the writer's: each listing, written through
    /// the store's sink on a miss (encoded, shared pieces spliced in) and on hits (own bytes
    /// and shared pieces stitched from the kept encodings), is what the generated code
    /// writes for the partitions read from the store, in both protocols.
    #[test]
    fn kept_partitions_are_written_as_the_generated_code_writes_them() {
        let store = store_with_partitions();
        let names = [
            "ds=a/hr=10",
            "ds=d/hr=4",
            "ds=b/hr=2",
            "ds=nope/hr=1",
            "ds=a/hr=10",
        ];
        let (any_then_3, a_then_any) = (
            vec![String::new(), "3".into()],
            vec!["a".into(), String::new()],
        );
        let selections = [
            engine::PartitionSelection::All,
            engine::PartitionSelection::Filter("ds = \"a\""),
            engine::PartitionSelection::Filter("ds >= \"b\" and ds < \"d\""),
            engine::PartitionSelection::Filter("hr = 2 or hr = 4"),
            engine::PartitionSelection::Names(&names),
            engine::PartitionSelection::PartialValues(&any_then_3),
            engine::PartitionSelection::PartialValues(&a_then_any),
        ];
        store.list_partition_names("hive", "db", "t", -1).unwrap();
        for selection in selections {
            for max_parts in [-1, 2] {
                let owned = store
                    .list_partitions_selected("hive", "db", "t", selection, max_parts, false)
                    .unwrap();
                for protocol in [Protocol::Binary, Protocol::Compact] {
                    let mut generated = Vec::new();
                    Encoder::new(&mut generated, protocol)
                        .list_begin(TType::Struct, owned.len())
                        .unwrap();
                    write_generated(&owned, protocol, &mut generated);
                    for attempt in ["encoded", "kept", "kept again"] {
                        let mut written = Vec::new();
                        let o = &mut Encoder::new(&mut written, protocol);
                        let mut sink = super::super::partitions::ReplyPartitions::new(o, protocol);
                        store
                            .write_partitions("hive", "db", "t", selection, max_parts, &mut sink)
                            .unwrap();
                        let context = format!("{selection:?} {max_parts} {protocol:?}, {attempt}");
                        assert_eq!(written, generated, "{context}");
                    }
                }
            }
        }
    }

    #[test]
    fn an_encoded_descriptor_splices_as_the_descriptor_is_written() {
        for table in [full_table(), plain_table()] {
            let sd = table.sd.unwrap();
            let archive = rkyv::to_bytes::<RkyvError>(&sd).unwrap();
            let archived =
                rkyv::access::<rkyv::Archived<engine::StorageDescriptor>, RkyvError>(&archive)
                    .unwrap();
            for (protocol, columns_unset) in [Protocol::Binary, Protocol::Compact]
                .into_iter()
                .flat_map(|protocol| [(protocol, false), (protocol, true)])
            {
                let encoded =
                    super::EncodedDescriptor::new(archived, columns_unset, protocol).unwrap();
                for location in [None, Some("memory:/w/p")] {
                    let (mut spliced, mut written) = (Vec::new(), Vec::new());
                    // Inside a struct whose last field was 5, as in a Partition.
                    let o = &mut Encoder::continuing(&mut spliced, protocol, 5);
                    encoded.write_field(o, 6, 1, location);
                    let o = &mut Encoder::continuing(&mut written, protocol, 5);
                    let converted = crate::convert::storage_to_idl(engine::StorageDescriptor {
                        location: location.map(str::to_string),
                        columns_unset,
                        ..sd.clone()
                    });
                    o.generated_struct_field(6, &converted).unwrap();
                    let case = format!("{protocol:?} {location:?}, columns unset: {columns_unset}");
                    assert_eq!(spliced, written, "{case}");
                }
            }
        }
    }

    #[test]
    fn tables_are_written_as_the_generated_code_writes_their_conversion() {
        for table in [full_table(), bare_view(), plain_table()] {
            for compact in [false, true] {
                let (direct, generated) = both_ways(&table, compact);
                assert!(!direct.is_empty());
                assert_eq!(
                    direct, generated,
                    "{} (compact: {compact})",
                    table.table_name
                );
            }
        }
    }
}
