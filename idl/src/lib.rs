//! The Hive Metastore Thrift IDL as Rust types (filled in by `idl/gen.sh`).
