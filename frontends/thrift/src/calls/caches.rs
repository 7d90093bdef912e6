//! The file-metadata cache calls and `flushCache`, answered as Hive 4 answers them with its
//! default configuration: its `ObjectStore` keeps no file metadata
//! (`isFileMetadataSupported` is false) and no cache to flush.

use hivestore_idl::hive_metastore as idl;

use crate::access::{Need, Target};
use crate::errors::undeclared;
use crate::service::Session;

/// `get_file_metadata_by_expr`: not supported, no metadata.
pub fn get_by_expr(
    session: &Session,
    _request: idl::GetFileMetadataByExprRequest,
) -> thrift::Result<idl::GetFileMetadataByExprResult> {
    session.authorize(Need::Anyone, Target::Server)?;
    Ok(idl::GetFileMetadataByExprResult {
        metadata: Default::default(),
        is_supported: false,
    })
}

/// `get_file_metadata`: not supported, no metadata.
pub fn get(
    session: &Session,
    _request: idl::GetFileMetadataRequest,
) -> thrift::Result<idl::GetFileMetadataResult> {
    session.authorize(Need::Anyone, Target::Server)?;
    Ok(idl::GetFileMetadataResult {
        metadata: Default::default(),
        is_supported: false,
    })
}

/// `put_file_metadata`: Hive's handler stores nothing when the store does not support file
/// metadata, and answers an empty result.
pub fn put(
    session: &Session,
    _request: idl::PutFileMetadataRequest,
) -> thrift::Result<idl::PutFileMetadataResult> {
    session.authorize(Need::Admin, Target::Server)?;
    Ok(idl::PutFileMetadataResult {})
}

/// `clear_file_metadata`: Hive's handler asks its store to clear without checking support,
/// and `ObjectStore` throws `UnsupportedOperationException`, which reaches the client as
/// Thrift's internal error; the call declares no exception, so this one says why.
pub fn clear(
    session: &Session,
    _request: idl::ClearFileMetadataRequest,
) -> thrift::Result<idl::ClearFileMetadataResult> {
    session.authorize(Need::Admin, Target::Server)?;
    Err(undeclared(
        "Internal error processing clear_file_metadata: this metastore keeps no file metadata",
    ))
}

/// `cache_file_metadata`: not supported.
pub fn cache(
    session: &Session,
    _request: idl::CacheFileMetadataRequest,
) -> thrift::Result<idl::CacheFileMetadataResult> {
    session.authorize(Need::Admin, Target::Server)?;
    Ok(idl::CacheFileMetadataResult {
        is_supported: false,
    })
}

/// `flushCache`: hivestore keeps nothing a flush could drop (what it keeps in memory is
/// valid for a version of the store, never stale), as Hive's `ObjectStore` has no cache.
pub fn flush(session: &Session) -> thrift::Result<()> {
    session.authorize(Need::Admin, Target::Server)?;
    Ok(())
}
