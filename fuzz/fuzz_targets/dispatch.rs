//! Feeds arbitrary bytes to a whole server connection: format detection, message reading and
//! dispatch. Any panic, hang or unbounded allocation is a bug.
#![no_main]

use std::io::{sink, Cursor};
use std::net::{Ipv4Addr, SocketAddr};
use std::sync::Arc;

use hivestore_engine::kv::MemoryBackend;
use hivestore_engine::{Durability, Store, StoreOptions};
use hivestore_thrift::limits::Limits;
use hivestore_thrift::server::serve_stream;
use hivestore_thrift::service::ServerState;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let limits = Limits {
        message_bytes_max: 64 * 1024,
        string_bytes_max: 16 * 1024,
        container_elements_max: 4096,
        connections_max: 1,
    };
    let peer = SocketAddr::from((Ipv4Addr::LOCALHOST, 1));
    let warehouse = std::env::temp_dir().join("hivestore-fuzz-warehouse");
    let mut options = StoreOptions::new(format!("file:{}", warehouse.display()));
    options.durability = Durability::Memory;
    let Ok(store) = Store::open_with_backend(Arc::new(MemoryBackend::new()), options) else {
        return;
    };
    let state = Arc::new(ServerState::new(store));
    let _ = serve_stream(Cursor::new(data), sink(), peer, state, limits);
});
