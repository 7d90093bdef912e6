//! hivestore's Hive Metastore Thrift frontend: the server that Spark, Hive, Trino, Impala,
//! Flink and PyIceberg talk to on port 9083.
//!
//! It is thin by design. A connection's first bytes tell its protocol (binary or compact) and
//! transport (buffered or framed) ([`detect`]); each request is read whole within the limits of
//! [`limits`] ([`message`]), dispatched to the generated processor ([`dispatch`]), and answered by
//! the service ([`service`]), which converts between IDL types and the engine's.
//!
//! It is not the storage engine: everything about catalogs lives in `hivestore-engine`, which
//! knows nothing of Thrift.
//!
//! ```no_run
//! use std::sync::Arc;
//! use hivestore_engine::{Store, StoreOptions};
//! use hivestore_thrift::{limits::Limits, server::Server, service::ServerState};
//!
//! let store = Store::open("./data".as_ref(), StoreOptions::new("file:/tmp/warehouse"))?;
//! let state = Arc::new(ServerState::new(store));
//! let server = Server::bind("127.0.0.1:0", Limits::default(), state)?;
//! println!("serving on {}", server.local_addr());
//! let stop = server.stop_handle();
//! std::thread::spawn(move || server.run());
//! stop.stop();
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
#![forbid(unsafe_code)]

pub mod access;
pub mod activity;
pub mod audit;
pub mod auth;
pub mod backups;
pub mod calls;
pub mod config;
mod connection;
pub mod convert;
pub mod convert_constraints;
pub mod convert_grants;
pub mod convert_stats;
pub mod convert_workload;
pub mod counters;
pub mod detect;
mod direct;
pub mod dispatch;
pub mod errors;
pub mod event_cleaner;
pub mod event_messages;
pub mod following;
pub mod forwarding;
#[cfg(test)]
mod hot_family_targets;
pub mod http;
pub mod inflight;
pub mod limits;
pub mod message;
pub mod metastore_conf;
pub mod methods;
pub mod metrics;
pub mod prewarm;
mod reply_buffers;
pub mod server;
pub mod service;
mod socket;
pub mod store_size;
pub mod tjson;
pub mod tls;
