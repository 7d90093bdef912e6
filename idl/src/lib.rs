//! The Hive Metastore Thrift IDL as Rust types, clients and processors.
//!
//! Everything under `src/generated/` is written by `idl/gen.sh` (Thrift 0.17's Rust
//! generator plus `gen_handler.py`) and committed; it is never edited by hand. A normal
//! build does not need the Thrift compiler.
//!
//! - [`hive_metastore`]: the `ThriftHiveMetastore` service and all its types.
//! - [`fb303`]: the `FacebookService` base service.
//! - [`handler`]: one [`handler::Handler`] trait with an UNKNOWN_METHOD default for every
//!   method, the [`handler::Adapter`] that plugs it into the generated processor, and the
//!   list of all methods by wire name, [`handler::METHODS`].

/// The fb303 base service. Generated; the Hive service refers to it as `crate::fb303`.
#[path = "generated/fb303.rs"]
#[allow(
    clippy::all,
    clippy::pedantic,
    dead_code,
    non_camel_case_types,
    non_snake_case,
    non_upper_case_globals,
    unused_imports,
    unused_extern_crates,
    unused_mut,
    unused_variables,
    unused_parens,
    unused_qualifications,
    rustdoc::all
)]
pub mod fb303;

/// The Hive Metastore service and its types. Generated.
#[path = "generated/hive_metastore.rs"]
#[allow(
    clippy::all,
    clippy::pedantic,
    dead_code,
    non_camel_case_types,
    non_snake_case,
    non_upper_case_globals,
    unused_imports,
    unused_extern_crates,
    unused_mut,
    unused_variables,
    unused_parens,
    unused_qualifications,
    rustdoc::all
)]
pub mod hive_metastore;

/// A `Handler` trait over both services with UNKNOWN_METHOD defaults. Generated.
///
/// The default bodies ignore their arguments, and some methods of the IDL take more
/// arguments than clippy likes.
#[path = "generated/handler.rs"]
#[allow(unused_variables, clippy::too_many_arguments)]
pub mod handler;
