//! Feeds arbitrary bytes to a whole server connection: format detection, message reading and
//! dispatch. Any panic, hang or unbounded allocation is a bug. The first byte sets how many
//! bytes each read of the connection returns at most, so that messages read as they arrive
//! (`add_partitions`) are cut at every place a socket may cut them.
#![no_main]

use std::io::{sink, Read};
use std::net::{Ipv4Addr, SocketAddr};
use std::sync::Arc;

use hivestore_engine::kv::MemoryBackend;
use hivestore_engine::{Durability, Store, StoreOptions};
use hivestore_thrift::limits::Limits;
use hivestore_thrift::server::serve_stream;
use hivestore_thrift::service::ServerState;
use libfuzzer_sys::fuzz_target;

/// The bytes, at most `fragment` a read.
struct Fragments<'a> {
    bytes: &'a [u8],
    fragment: usize,
}

impl Read for Fragments<'_> {
    fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
        let count = self.bytes.len().min(out.len()).min(self.fragment);
        out[..count].copy_from_slice(&self.bytes[..count]);
        self.bytes = &self.bytes[count..];
        Ok(count)
    }
}

fuzz_target!(|data: &[u8]| {
    let Some((&fragment, data)) = data.split_first() else {
        return;
    };
    // 1 to 64 bytes a read, or all at once.
    let fragment = match fragment {
        0..=63 => usize::from(fragment) + 1,
        _ => usize::MAX,
    };
    let limits = Limits {
        message_bytes_max: 64 * 1024,
        string_bytes_max: 16 * 1024,
        container_elements_max: 4096,
        connections_max: 1,
        ..Limits::default()
    };
    let peer = SocketAddr::from((Ipv4Addr::LOCALHOST, 1));
    let warehouse = std::env::temp_dir().join("hivestore-fuzz-warehouse");
    let mut options = StoreOptions::new(format!("file:{}", warehouse.display()));
    options.durability = Durability::Memory;
    let Ok(store) = Store::open_with_backend(Arc::new(MemoryBackend::new()), options) else {
        return;
    };
    let state = Arc::new(ServerState::new(store));
    let _ = serve_stream(Fragments { bytes: data, fragment }, sink(), peer, state, limits);
});
