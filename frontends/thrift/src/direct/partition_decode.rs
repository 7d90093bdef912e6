//! Partitions read from binary-protocol bytes straight into the engine's `NewPartition`, giving
//! what the generated decoder and `convert::partition_from_idl(partition, "")` give, split
//! (a blank catalog name stays empty, for the caller to fill with the table's).
//!
//! The partitions of one request nearly always share their storage descriptor but for its
//! location, so each descriptor is first compared, as bytes, with the previous one around the
//! location field; when they match, the previous descriptor is shared (an `Arc`) and only the
//! new location read, instead of the descriptor being decoded, or copied, again. Fields the engine does not keep or that are rare here
//! (privileges, column statistics, file metadata) are [`Unusual`]: the generated decoder reads
//! those requests.

use std::ops::Range;
use std::sync::Arc;

use hivestore_engine as engine;

use super::wire_reader::{
    Read, Unusual, WireReader, RESERVED_ELEMENTS_MAX, T_BOOL, T_I32, T_I64, T_LIST, T_MAP,
    T_STRING, T_STRUCT,
};

/// The last storage descriptor decoded, and where its bytes lie in the message, split around
/// its location field (offsets from the message's start, which stay valid as more of it
/// arrives and the buffer moves).
pub(crate) struct DescriptorMemo {
    /// The descriptor's bytes up to its location field (all of them when it has none).
    before_location: Range<usize>,
    /// Its bytes after the location field, through its stop byte.
    after_location: Range<usize>,
    /// Whether it had a location field.
    has_location: bool,
    /// The descriptor without its location, shared by the partitions that repeat it.
    descriptor: Arc<engine::StorageDescriptor>,
}

/// Reads one `Partition` struct (its fields through the stop byte).
pub(crate) fn partition(
    reader: &mut WireReader<'_>,
    memo: &mut Option<DescriptorMemo>,
) -> Read<engine::NewPartition> {
    let mut partition = engine::NewPartition {
        write_id: -1,
        ..engine::NewPartition::default()
    };
    while let Some((field_type, id)) = reader.field()? {
        match (id, field_type) {
            (1, T_LIST) => partition.values = reader.strings()?,
            (2, T_STRING) => partition.db_name = reader.string()?,
            (3, T_STRING) => partition.table_name = reader.string()?,
            // createTime: an add sets it; read and dropped.
            (4, T_I32) => drop(reader.i32()?),
            (5, T_I32) => partition.last_access_time = reader.i32()?,
            (6, T_STRUCT) => {
                let (shared, location) = descriptor(reader, memo)?;
                partition.descriptor = Some(shared);
                partition.location = location;
            }
            (7, T_MAP) => partition.parameters = reader.string_map()?,
            (9, T_STRING) => partition.cat_name = non_blank(reader.str()?),
            (10, T_I64) => partition.write_id = reader.i64()?,
            // isStatsCompliant: the server computes it; read and dropped, as by the conversion.
            (11, T_BOOL) => drop(reader.bool()?),
            _ => return Err(Unusual),
        }
    }
    Ok(partition)
}

fn non_blank(name: &str) -> String {
    if name.trim().is_empty() {
        String::new()
    } else {
        name.to_string()
    }
}

/// A storage descriptor, split: the previous one's shared part and a new location when their
/// bytes match around it, else decoded.
fn descriptor(
    reader: &mut WireReader<'_>,
    memo: &mut Option<DescriptorMemo>,
) -> Read<(Arc<engine::StorageDescriptor>, Option<String>)> {
    if let Some(previous) = memo.as_ref() {
        if let Some(location) = same_but_location(reader, previous)? {
            return Ok((previous.descriptor.clone(), location));
        }
    }
    let start = reader.position();
    let mut location_field = LocationField::None;
    let mut descriptor = decode_descriptor(reader, start, &mut location_field)?;
    let location = descriptor.location.take();
    let descriptor = Arc::new(descriptor);
    let end = reader.position();
    *memo = match location_field {
        LocationField::Repeated => None,
        LocationField::None => Some(DescriptorMemo {
            before_location: start..end,
            after_location: end..end,
            has_location: false,
            descriptor: descriptor.clone(),
        }),
        LocationField::At(from, to) => Some(DescriptorMemo {
            before_location: start..start + from,
            after_location: start + to..end,
            has_location: true,
            descriptor: descriptor.clone(),
        }),
    };
    Ok((descriptor, location))
}

/// When the descriptor at `reader` has the bytes of `previous` around its location field,
/// moves past it and returns its location (as the conversion keeps it: none when empty).
/// Identical bytes before and after parse identically, so the descriptors are equal but for
/// the location. Bytes that have not arrived yet do not match.
fn same_but_location(
    reader: &mut WireReader<'_>,
    previous: &DescriptorMemo,
) -> Read<Option<Option<String>>> {
    let bytes = reader.bytes();
    let before = &bytes[previous.before_location.clone()];
    let rest = &bytes[reader.position()..];
    if !rest.starts_with(before) {
        return Ok(None);
    }
    if !previous.has_location {
        reader.advance(before.len())?;
        return Ok(Some(None));
    }
    let mut probe = WireReader::at(&rest[before.len()..], 0, reader.limits());
    if probe.field() != Ok(Some((T_STRING, 2))) {
        return Ok(None);
    }
    let Ok(location) = probe.str() else {
        return Ok(None);
    };
    let after = &bytes[previous.after_location.clone()];
    if !rest[before.len() + probe.position()..].starts_with(after) {
        return Ok(None);
    }
    let length = before.len() + probe.position() + after.len();
    reader.advance(length)?;
    Ok(Some((!location.is_empty()).then(|| location.to_string())))
}

/// Where a descriptor's location field lies, relative to the descriptor's start.
enum LocationField {
    None,
    At(usize, usize),
    /// More than once: the bytes around it do not say what the decoder kept.
    Repeated,
}

fn decode_descriptor(
    reader: &mut WireReader<'_>,
    start: usize,
    location_field: &mut LocationField,
) -> Read<engine::StorageDescriptor> {
    let mut sd = engine::StorageDescriptor {
        columns_unset: true,
        ..engine::StorageDescriptor::default()
    };
    loop {
        let field_start = reader.position() - start;
        let Some((field_type, id)) = reader.field()? else {
            return Ok(sd);
        };
        match (id, field_type) {
            (1, T_LIST) => {
                sd.cols = list_of(reader, column)?;
                sd.columns_unset = false;
            }
            (2, T_STRING) => {
                let location = reader.str()?;
                sd.location = (!location.is_empty()).then(|| location.to_string());
                *location_field = match *location_field {
                    LocationField::None => {
                        LocationField::At(field_start, reader.position() - start)
                    }
                    _ => LocationField::Repeated,
                };
            }
            (3, T_STRING) => sd.input_format = Some(reader.string()?),
            (4, T_STRING) => sd.output_format = Some(reader.string()?),
            (5, T_BOOL) => sd.compressed = reader.bool()?,
            (6, T_I32) => sd.num_buckets = reader.i32()?,
            (7, T_STRUCT) => sd.serde_info = Some(serde_info(reader)?),
            (8, T_LIST) => sd.bucket_cols = reader.strings()?,
            (9, T_LIST) => sd.sort_cols = list_of(reader, order)?,
            (10, T_MAP) => sd.parameters = reader.string_map()?,
            (11, T_STRUCT) => sd.skewed_info = Some(skewed_info(reader)?),
            (12, T_BOOL) => sd.stored_as_sub_directories = Some(reader.bool()?),
            _ => return Err(Unusual),
        }
    }
}

/// A `list<struct>` whose elements `element` reads.
fn list_of<'a, T>(
    reader: &mut WireReader<'a>,
    element: fn(&mut WireReader<'a>) -> Read<T>,
) -> Read<Vec<T>> {
    let count = reader.list(T_STRUCT)?;
    let mut elements = Vec::with_capacity(count.min(RESERVED_ELEMENTS_MAX));
    for _ in 0..count {
        elements.push(element(reader)?);
    }
    Ok(elements)
}

fn column(reader: &mut WireReader<'_>) -> Read<engine::FieldSchema> {
    let mut column = engine::FieldSchema::default();
    while let Some((field_type, id)) = reader.field()? {
        match (id, field_type) {
            (1, T_STRING) => column.name = reader.string()?,
            (2, T_STRING) => column.type_name = reader.string()?,
            (3, T_STRING) => column.comment = Some(reader.string()?),
            _ => return Err(Unusual),
        }
    }
    Ok(column)
}

fn order(reader: &mut WireReader<'_>) -> Read<engine::Order> {
    let mut order = engine::Order::default();
    while let Some((field_type, id)) = reader.field()? {
        match (id, field_type) {
            (1, T_STRING) => order.col = reader.string()?,
            (2, T_I32) => order.order = reader.i32()?,
            _ => return Err(Unusual),
        }
    }
    Ok(order)
}

fn serde_info(reader: &mut WireReader<'_>) -> Read<engine::SerDeInfo> {
    let mut serde = engine::SerDeInfo::default();
    while let Some((field_type, id)) = reader.field()? {
        match (id, field_type) {
            (1, T_STRING) => serde.name = Some(reader.string()?),
            (2, T_STRING) => serde.serialization_lib = Some(reader.string()?),
            (3, T_MAP) => serde.parameters = reader.string_map()?,
            (4, T_STRING) => serde.description = Some(reader.string()?),
            (5, T_STRING) => serde.serializer_class = Some(reader.string()?),
            (6, T_STRING) => serde.deserializer_class = Some(reader.string()?),
            (7, T_I32) => {
                let kind = hivestore_idl::hive_metastore::SerdeType(reader.i32()?);
                serde.serde_type = Some(crate::convert::serde_type_from_idl(kind));
            }
            _ => return Err(Unusual),
        }
    }
    Ok(serde)
}

fn skewed_info(reader: &mut WireReader<'_>) -> Read<engine::SkewedInfo> {
    let mut skewed = engine::SkewedInfo::default();
    while let Some((field_type, id)) = reader.field()? {
        match (id, field_type) {
            (1, T_LIST) => skewed.skewed_col_names = reader.strings()?,
            (2, T_LIST) => {
                let count = reader.list(T_LIST)?;
                let mut tuples = Vec::with_capacity(count.min(RESERVED_ELEMENTS_MAX));
                for _ in 0..count {
                    tuples.push(reader.strings()?);
                }
                skewed.skewed_col_values = tuples;
            }
            (3, T_MAP) => {
                // Keyed by value tuple, ordered and deduplicated as the generated BTreeMap is.
                let count = reader.map(T_LIST, T_STRING)?;
                let mut locations = std::collections::BTreeMap::new();
                for _ in 0..count {
                    let values = reader.strings()?;
                    locations.insert(values, reader.string()?);
                }
                skewed.skewed_col_value_location_maps = locations
                    .into_iter()
                    .map(|(values, location)| engine::SkewedValueLocation { values, location })
                    .collect();
            }
            _ => return Err(Unusual),
        }
    }
    Ok(skewed)
}
