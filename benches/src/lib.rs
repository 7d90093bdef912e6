//! hivestore's benchmarks. Nothing lives in this library; see:
//!
//! - `benches/engine_tables.rs`: criterion benchmarks of table reads and writes, in the engine
//!   and over Thrift on loopback, each named after the number it guards
//!   (`cargo bench -p hivestore-benches`);
//! - `tests/workloads.rs`: every workload of the load generator run once, at a tiny size,
//!   against an in-process hivestore, so that none rots;
//! - `loadgen/`: the load generator itself (crate `hivestore-loadgen`, command
//!   `hivestore bench`).
#![forbid(unsafe_code)]
