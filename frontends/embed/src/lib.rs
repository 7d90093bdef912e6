//! hivestore as a library: the metastore catalog in-process, no server.
#![deny(missing_docs)]
#![forbid(unsafe_code)]
