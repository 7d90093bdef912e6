//! Benchmarks of hivestore live under `benches/`.
