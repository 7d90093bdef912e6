//! The Hive Metastore Thrift frontend of hivestore.
