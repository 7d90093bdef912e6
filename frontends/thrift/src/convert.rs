//! Conversions between the IDL's types (`hivestore_idl`) and the engine's.
//!
//! Toward the wire every struct is built field by field, never from `Default`: the generated
//! `Default` fills optional fields with `Some(0)` / `Some("")`, which would send values the
//! metastore never stored. Fields the engine does not keep go out unset.

use std::collections::{BTreeMap, BTreeSet};

use hivestore_engine as engine;
use hivestore_idl::hive_metastore as idl;

/// Principal types: the IDL's open enum to the engine's closed one (unknown values → user).
pub fn principal_type_from_idl(value: idl::PrincipalType) -> engine::PrincipalType {
    match value {
        idl::PrincipalType::ROLE => engine::PrincipalType::Role,
        idl::PrincipalType::GROUP => engine::PrincipalType::Group,
        _ => engine::PrincipalType::User,
    }
}

/// Principal types toward the wire.
pub fn principal_type_to_idl(value: engine::PrincipalType) -> idl::PrincipalType {
    match value {
        engine::PrincipalType::User => idl::PrincipalType::USER,
        engine::PrincipalType::Role => idl::PrincipalType::ROLE,
        engine::PrincipalType::Group => idl::PrincipalType::GROUP,
    }
}

fn grants_from_idl(
    grants: Option<BTreeMap<String, Vec<idl::PrivilegeGrantInfo>>>,
) -> BTreeMap<String, Vec<engine::PrivilegeGrantInfo>> {
    let convert = |grant: idl::PrivilegeGrantInfo| engine::PrivilegeGrantInfo {
        privilege: grant.privilege.unwrap_or_default(),
        create_time: grant.create_time.unwrap_or_default(),
        grantor: grant.grantor.unwrap_or_default(),
        grantor_type: grant
            .grantor_type
            .map(principal_type_from_idl)
            .unwrap_or_default(),
        grant_option: grant.grant_option.unwrap_or_default(),
    };
    grants
        .unwrap_or_default()
        .into_iter()
        .map(|(principal, list)| (principal, list.into_iter().map(convert).collect()))
        .collect()
}

fn grants_to_idl(
    grants: BTreeMap<String, Vec<engine::PrivilegeGrantInfo>>,
) -> BTreeMap<String, Vec<idl::PrivilegeGrantInfo>> {
    let convert = |grant: engine::PrivilegeGrantInfo| idl::PrivilegeGrantInfo {
        privilege: Some(grant.privilege),
        create_time: Some(grant.create_time),
        grantor: Some(grant.grantor),
        grantor_type: Some(principal_type_to_idl(grant.grantor_type)),
        grant_option: Some(grant.grant_option),
    };
    grants
        .into_iter()
        .map(|(principal, list)| (principal, list.into_iter().map(convert).collect()))
        .collect()
}

/// Privileges from the wire.
pub fn privileges_from_idl(set: idl::PrincipalPrivilegeSet) -> engine::PrincipalPrivilegeSet {
    engine::PrincipalPrivilegeSet {
        user_privileges: grants_from_idl(set.user_privileges),
        group_privileges: grants_from_idl(set.group_privileges),
        role_privileges: grants_from_idl(set.role_privileges),
    }
}

/// Privileges toward the wire.
pub fn privileges_to_idl(set: engine::PrincipalPrivilegeSet) -> idl::PrincipalPrivilegeSet {
    idl::PrincipalPrivilegeSet {
        user_privileges: Some(grants_to_idl(set.user_privileges)),
        group_privileges: Some(grants_to_idl(set.group_privileges)),
        role_privileges: Some(grants_to_idl(set.role_privileges)),
    }
}

/// A catalog from the wire.
pub fn catalog_from_idl(catalog: idl::Catalog) -> engine::Catalog {
    engine::Catalog {
        name: catalog.name.unwrap_or_default(),
        description: catalog.description,
        location_uri: catalog.location_uri.unwrap_or_default(),
        create_time: catalog.create_time,
    }
}

/// A catalog toward the wire.
pub fn catalog_to_idl(catalog: engine::Catalog) -> idl::Catalog {
    idl::Catalog {
        name: Some(catalog.name),
        description: catalog.description,
        location_uri: Some(catalog.location_uri),
        create_time: catalog.create_time,
    }
}

fn database_type_from_idl(value: idl::DatabaseType) -> engine::DatabaseType {
    if value == idl::DatabaseType::REMOTE {
        engine::DatabaseType::Remote
    } else {
        engine::DatabaseType::Native
    }
}

fn database_type_to_idl(value: engine::DatabaseType) -> idl::DatabaseType {
    match value {
        engine::DatabaseType::Native => idl::DatabaseType::NATIVE,
        engine::DatabaseType::Remote => idl::DatabaseType::REMOTE,
    }
}

/// A database from the wire; `catalog` fills an absent catalog name.
pub fn database_from_idl(database: idl::Database, catalog: &str) -> engine::Database {
    engine::Database {
        name: database.name.unwrap_or_default(),
        description: database.description,
        location_uri: database.location_uri.filter(|uri| !uri.is_empty()),
        parameters: database.parameters.unwrap_or_default(),
        privileges: database.privileges.map(privileges_from_idl),
        owner_name: database.owner_name,
        owner_type: database.owner_type.map(principal_type_from_idl),
        catalog_name: database.catalog_name.unwrap_or_else(|| catalog.to_string()),
        create_time: database.create_time,
        managed_location_uri: database.managed_location_uri.filter(|uri| !uri.is_empty()),
        database_type: database.type_.map(database_type_from_idl),
        connector_name: database.connector_name,
        remote_database_name: database.remote_dbname,
    }
}

/// A `CreateDatabaseRequest` as the database it creates.
pub fn database_from_create_request(request: idl::CreateDatabaseRequest) -> engine::Database {
    engine::Database {
        name: request.database_name,
        description: request.description,
        location_uri: request.location_uri.filter(|uri| !uri.is_empty()),
        parameters: request.parameters.unwrap_or_default(),
        privileges: request.privileges.map(privileges_from_idl),
        owner_name: request.owner_name,
        owner_type: request.owner_type.map(principal_type_from_idl),
        catalog_name: request
            .catalog_name
            .unwrap_or_else(|| engine::DEFAULT_CATALOG_NAME.to_string()),
        create_time: request.create_time,
        managed_location_uri: request.managed_location_uri.filter(|uri| !uri.is_empty()),
        database_type: request.type_.map(database_type_from_idl),
        connector_name: request.data_connector_name,
        remote_database_name: request.remote_dbname,
    }
}

/// A database toward the wire.
pub fn database_to_idl(database: engine::Database) -> idl::Database {
    idl::Database {
        name: Some(database.name),
        description: database.description,
        location_uri: database.location_uri,
        parameters: Some(database.parameters),
        privileges: database.privileges.map(privileges_to_idl),
        owner_name: database.owner_name,
        owner_type: database.owner_type.map(principal_type_to_idl),
        catalog_name: Some(database.catalog_name),
        create_time: database.create_time,
        managed_location_uri: database.managed_location_uri,
        // Hive 4 answers NATIVE for a database created without a type.
        type_: Some(database_type_to_idl(
            database
                .database_type
                .unwrap_or(engine::DatabaseType::Native),
        )),
        connector_name: database.connector_name,
        remote_dbname: database.remote_database_name,
    }
}

/// Columns from the wire.
pub fn fields_from_idl(fields: Option<Vec<idl::FieldSchema>>) -> Vec<engine::FieldSchema> {
    fields
        .unwrap_or_default()
        .into_iter()
        .map(|field| engine::FieldSchema {
            name: field.name.unwrap_or_default(),
            type_name: field.type_.unwrap_or_default(),
            comment: field.comment,
        })
        .collect()
}

/// Columns toward the wire.
pub fn fields_to_idl(fields: Vec<engine::FieldSchema>) -> Vec<idl::FieldSchema> {
    fields
        .into_iter()
        .map(|field| idl::FieldSchema {
            name: Some(field.name),
            type_: Some(field.type_name),
            comment: field.comment,
        })
        .collect()
}

pub fn serde_from_idl(serde: idl::SerDeInfo) -> engine::SerDeInfo {
    engine::SerDeInfo {
        name: serde.name,
        serialization_lib: serde.serialization_lib,
        parameters: serde.parameters.unwrap_or_default(),
        description: serde.description,
        serializer_class: serde.serializer_class,
        deserializer_class: serde.deserializer_class,
        serde_type: serde.serde_type.map(serde_type_from_idl),
    }
}

/// The engine's serde kind of `kind`: the schema registry, or Hive's for any other value.
pub(crate) fn serde_type_from_idl(kind: idl::SerdeType) -> engine::SerdeType {
    if kind == idl::SerdeType::SCHEMA_REGISTRY {
        engine::SerdeType::SchemaRegistry
    } else {
        engine::SerdeType::Hive
    }
}

pub fn serde_to_idl(serde: engine::SerDeInfo) -> idl::SerDeInfo {
    idl::SerDeInfo {
        name: serde.name,
        serialization_lib: serde.serialization_lib,
        parameters: Some(serde.parameters),
        description: serde.description,
        serializer_class: serde.serializer_class,
        deserializer_class: serde.deserializer_class,
        serde_type: serde.serde_type.map(|kind| match kind {
            engine::SerdeType::Hive => idl::SerdeType::HIVE,
            engine::SerdeType::SchemaRegistry => idl::SerdeType::SCHEMA_REGISTRY,
        }),
    }
}

fn skewed_from_idl(skewed: idl::SkewedInfo) -> engine::SkewedInfo {
    engine::SkewedInfo {
        skewed_col_names: skewed.skewed_col_names.unwrap_or_default(),
        skewed_col_values: skewed.skewed_col_values.unwrap_or_default(),
        skewed_col_value_location_maps: skewed
            .skewed_col_value_location_maps
            .unwrap_or_default()
            .into_iter()
            .map(|(values, location)| engine::SkewedValueLocation { values, location })
            .collect(),
    }
}

pub(crate) fn skewed_to_idl(skewed: engine::SkewedInfo) -> idl::SkewedInfo {
    idl::SkewedInfo {
        skewed_col_names: Some(skewed.skewed_col_names),
        skewed_col_values: Some(skewed.skewed_col_values),
        skewed_col_value_location_maps: Some(
            skewed
                .skewed_col_value_location_maps
                .into_iter()
                .map(|entry| (entry.values, entry.location))
                .collect(),
        ),
    }
}

fn file_metadata_from_idl(metadata: idl::FileMetadata) -> engine::FileMetadata {
    engine::FileMetadata {
        metadata_type: metadata.type_.unwrap_or(1),
        version: metadata.version.unwrap_or(1),
        data: metadata.data.unwrap_or_default(),
    }
}

/// File metadata toward the wire.
pub(crate) fn file_metadata_to_idl(metadata: engine::FileMetadata) -> idl::FileMetadata {
    idl::FileMetadata {
        type_: Some(metadata.metadata_type),
        version: Some(metadata.version),
        data: Some(metadata.data),
    }
}

/// A storage descriptor from the wire. Unset columns read as none ([`partition_storage_from_idl`]
/// keeps that they were unset).
pub fn storage_from_idl(sd: idl::StorageDescriptor) -> engine::StorageDescriptor {
    engine::StorageDescriptor {
        cols: fields_from_idl(sd.cols),
        location: sd.location.filter(|location| !location.is_empty()),
        input_format: sd.input_format,
        output_format: sd.output_format,
        compressed: sd.compressed.unwrap_or_default(),
        num_buckets: sd.num_buckets.unwrap_or_default(),
        serde_info: sd.serde_info.map(serde_from_idl),
        bucket_cols: sd.bucket_cols.unwrap_or_default(),
        sort_cols: sd
            .sort_cols
            .unwrap_or_default()
            .into_iter()
            .map(|order| engine::Order {
                col: order.col.unwrap_or_default(),
                order: order.order.unwrap_or_default(),
            })
            .collect(),
        parameters: sd.parameters.unwrap_or_default(),
        skewed_info: sd.skewed_info.map(skewed_from_idl),
        stored_as_sub_directories: sd.stored_as_sub_directories,
        columns_unset: false,
    }
}

/// A partition's storage descriptor from the wire: the store keeps whether its columns were
/// unset, as Hive answers them.
pub fn partition_storage_from_idl(sd: idl::StorageDescriptor) -> engine::StorageDescriptor {
    let columns_unset = sd.cols.is_none();
    engine::StorageDescriptor {
        columns_unset,
        ..storage_from_idl(sd)
    }
}

/// A storage descriptor toward the wire.
pub fn storage_to_idl(sd: engine::StorageDescriptor) -> idl::StorageDescriptor {
    idl::StorageDescriptor {
        cols: (!sd.columns_unset).then(|| fields_to_idl(sd.cols)),
        location: sd.location,
        input_format: sd.input_format,
        output_format: sd.output_format,
        compressed: Some(sd.compressed),
        num_buckets: Some(sd.num_buckets),
        serde_info: sd.serde_info.map(serde_to_idl),
        bucket_cols: Some(sd.bucket_cols),
        sort_cols: Some(
            sd.sort_cols
                .into_iter()
                .map(|order| idl::Order {
                    col: Some(order.col),
                    order: Some(order.order),
                })
                .collect(),
        ),
        parameters: Some(sd.parameters),
        skewed_info: sd.skewed_info.map(skewed_to_idl),
        stored_as_sub_directories: sd.stored_as_sub_directories,
    }
}

pub(crate) fn creation_metadata_from_idl(
    metadata: idl::CreationMetadata,
) -> engine::CreationMetadata {
    let catalog = metadata.cat_name.clone();
    let source_from_idl = |source: Box<idl::SourceTable>| engine::SourceTable {
        table: table_from_idl(source.table, &catalog),
        inserted_count: source.inserted_count,
        updated_count: source.updated_count,
        deleted_count: source.deleted_count,
    };
    engine::CreationMetadata {
        source_tables: metadata
            .source_tables
            .map(|sources| sources.into_iter().map(source_from_idl).collect()),
        cat_name: metadata.cat_name,
        db_name: metadata.db_name,
        tbl_name: metadata.tbl_name,
        tables_used: metadata.tables_used.into_iter().collect(),
        valid_txn_list: metadata.valid_txn_list,
        materialization_time: metadata.materialization_time,
    }
}

pub(crate) fn creation_metadata_to_idl(
    metadata: engine::CreationMetadata,
) -> idl::CreationMetadata {
    idl::CreationMetadata {
        cat_name: metadata.cat_name,
        db_name: metadata.db_name,
        tbl_name: metadata.tbl_name,
        tables_used: metadata.tables_used.into_iter().collect::<BTreeSet<_>>(),
        valid_txn_list: metadata.valid_txn_list,
        materialization_time: metadata.materialization_time,
        source_tables: metadata.source_tables.map(|sources| {
            let source_to_idl = |source: engine::SourceTable| {
                Box::new(idl::SourceTable {
                    table: table_to_idl(source.table),
                    inserted_count: source.inserted_count,
                    updated_count: source.updated_count,
                    deleted_count: source.deleted_count,
                })
            };
            sources.into_iter().map(source_to_idl).collect()
        }),
    }
}

/// A table from the wire; `catalog` fills an absent catalog name. Server-owned fields
/// (id, create time) are set by the engine on create.
pub fn table_from_idl(table: idl::Table, catalog: &str) -> engine::Table {
    engine::Table {
        table_name: table.table_name.unwrap_or_default(),
        db_name: table.db_name.unwrap_or_default(),
        owner: table.owner,
        create_time: table.create_time.unwrap_or_default(),
        last_access_time: table.last_access_time.unwrap_or_default(),
        retention: table.retention.unwrap_or_default(),
        sd: table.sd.map(storage_from_idl),
        partition_keys: fields_from_idl(table.partition_keys),
        parameters: table.parameters.unwrap_or_default(),
        view_original_text: table.view_original_text,
        view_expanded_text: table.view_expanded_text,
        table_type: table.table_type.filter(|kind| !kind.is_empty()),
        privileges: table.privileges.map(privileges_from_idl),
        temporary: table.temporary.unwrap_or_default(),
        rewrite_enabled: table.rewrite_enabled,
        creation_metadata: table.creation_metadata.map(creation_metadata_from_idl),
        cat_name: table.cat_name.unwrap_or_else(|| catalog.to_string()),
        owner_type: table.owner_type.map(principal_type_from_idl),
        write_id: table.write_id.unwrap_or(-1),
        access_type: table.access_type,
        required_read_capabilities: table.required_read_capabilities,
        required_write_capabilities: table.required_write_capabilities,
        id: table.id.unwrap_or_default(),
        file_metadata: table.file_metadata.map(file_metadata_from_idl),
        dictionary: table.dictionary.map(|dictionary| dictionary.values),
        txn_id: table.txn_id,
    }
}

/// A table toward the wire.
pub fn table_to_idl(table: engine::Table) -> idl::Table {
    idl::Table {
        table_name: Some(table.table_name),
        db_name: Some(table.db_name),
        owner: table.owner,
        create_time: Some(table.create_time),
        last_access_time: Some(table.last_access_time),
        retention: Some(table.retention),
        sd: table.sd.map(storage_to_idl),
        partition_keys: Some(fields_to_idl(table.partition_keys)),
        parameters: Some(table.parameters),
        view_original_text: table.view_original_text,
        view_expanded_text: table.view_expanded_text,
        table_type: table.table_type,
        privileges: table.privileges.map(privileges_to_idl),
        temporary: table.temporary.then_some(true),
        rewrite_enabled: Some(table.rewrite_enabled.unwrap_or(false)),
        creation_metadata: table.creation_metadata.map(creation_metadata_to_idl),
        cat_name: Some(table.cat_name),
        owner_type: Some(principal_type_to_idl(table.owner_type.unwrap_or_default())),
        write_id: Some(table.write_id),
        is_stats_compliant: None,
        col_stats: None,
        access_type: table.access_type,
        required_read_capabilities: table.required_read_capabilities,
        required_write_capabilities: table.required_write_capabilities,
        id: Some(table.id),
        file_metadata: table.file_metadata.map(file_metadata_to_idl),
        dictionary: table
            .dictionary
            .map(|values| idl::ObjectDictionary { values }),
        txn_id: table.txn_id,
    }
}

/// A partition from the wire; `catalog` fills an absent catalog name. An absent write id is
/// Hive's default, -1.
pub fn partition_from_idl(partition: idl::Partition, catalog: &str) -> engine::Partition {
    engine::Partition {
        values: partition.values.unwrap_or_default(),
        db_name: partition.db_name.unwrap_or_default(),
        table_name: partition.table_name.unwrap_or_default(),
        create_time: partition.create_time.unwrap_or_default(),
        last_access_time: partition.last_access_time.unwrap_or_default(),
        sd: partition.sd.map(partition_storage_from_idl),
        parameters: partition.parameters.unwrap_or_default(),
        privileges: partition.privileges.map(privileges_from_idl),
        cat_name: partition
            .cat_name
            .filter(|name| !name.trim().is_empty())
            .unwrap_or_else(|| catalog.to_string()),
        write_id: partition.write_id.unwrap_or(-1),
        file_metadata: partition.file_metadata.map(file_metadata_from_idl),
    }
}

/// A partition toward the wire.
pub fn partition_to_idl(partition: engine::Partition) -> idl::Partition {
    idl::Partition {
        values: Some(partition.values),
        db_name: Some(partition.db_name),
        table_name: Some(partition.table_name),
        create_time: Some(partition.create_time),
        last_access_time: Some(partition.last_access_time),
        sd: partition.sd.map(storage_to_idl),
        parameters: Some(partition.parameters),
        privileges: partition.privileges.map(privileges_to_idl),
        cat_name: Some(partition.cat_name),
        write_id: Some(partition.write_id),
        is_stats_compliant: None,
        col_stats: None,
        file_metadata: partition.file_metadata.map(file_metadata_to_idl),
    }
}

/// `ResourceType` as Hive's enum numbers it.
pub fn resource_type_to_idl(value: engine::ResourceType) -> idl::ResourceType {
    match value {
        engine::ResourceType::Jar => idl::ResourceType::JAR,
        engine::ResourceType::File => idl::ResourceType::FILE,
        engine::ResourceType::Archive => idl::ResourceType::ARCHIVE,
    }
}

/// A stored function as Hive's `Function`.
pub fn function_to_idl(function: engine::Function) -> idl::Function {
    let resources = function
        .resource_uris
        .into_iter()
        .map(|resource| idl::ResourceUri {
            resource_type: Some(resource_type_to_idl(resource.resource_type)),
            uri: Some(resource.uri),
        });
    idl::Function {
        function_name: Some(function.function_name),
        db_name: Some(function.db_name),
        class_name: Some(function.class_name),
        owner_name: function.owner_name,
        owner_type: Some(principal_type_to_idl(function.owner_type)),
        create_time: Some(function.create_time),
        function_type: Some(match function.function_type {
            engine::FunctionType::Java => idl::FunctionType::JAVA,
        }),
        resource_uris: Some(resources.collect()),
        cat_name: Some(function.cat_name),
    }
}
