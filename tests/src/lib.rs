//! Helpers shared by the end-to-end tests: an in-process server on a free loopback port, and
//! Thrift clients for it in every protocol and transport.

use std::net::{SocketAddr, TcpStream};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;

use hivestore_engine::{Store, StoreOptions};
use hivestore_idl::hive_metastore::ThriftHiveMetastoreSyncClient;
use hivestore_thrift::limits::Limits;
use hivestore_thrift::server::{Server, StopHandle};
use hivestore_thrift::service::ServerState;
use thrift::protocol::{
    TBinaryInputProtocol, TBinaryOutputProtocol, TCompactInputProtocol, TCompactOutputProtocol,
    TInputProtocol, TOutputProtocol,
};
use thrift::transport::{
    TBufferedReadTransport, TBufferedWriteTransport, TFramedReadTransport, TFramedWriteTransport,
    TIoChannel, TTcpChannel,
};

/// A server running in this process until dropped, on a store in a temporary directory.
pub struct TestServer {
    /// Where it listens.
    pub addr: SocketAddr,
    /// The data directory and warehouse, removed on drop.
    pub dir: tempfile::TempDir,
    stop: StopHandle,
    thread: Option<JoinHandle<std::io::Result<()>>>,
}

impl TestServer {
    /// Starts a server with default limits on a free port.
    pub fn start() -> TestServer {
        Self::start_with(Limits::default())
    }

    /// Starts a server with the given limits on a free port.
    pub fn start_with(limits: Limits) -> TestServer {
        let dir = tempfile::tempdir().expect("a temporary directory");
        let warehouse = dir.path().join("warehouse");
        std::fs::create_dir_all(&warehouse).expect("create the warehouse");
        let options = StoreOptions::new(format!("file:{}", warehouse.display()));
        let store = Store::open(&dir.path().join("data"), options).expect("open a store");
        let server = Server::bind("127.0.0.1:0", limits, Arc::new(ServerState::new(store)))
            .expect("bind a loopback port");
        let addr = server.local_addr();
        let stop = server.stop_handle();
        let thread = Some(std::thread::spawn(move || server.run()));
        TestServer {
            addr,
            dir,
            stop,
            thread,
        }
    }

    /// A raw socket to the server, with a read timeout so no test can hang.
    pub fn raw(&self) -> TcpStream {
        let stream = TcpStream::connect(self.addr).expect("connect");
        stream
            .set_read_timeout(Some(Duration::from_secs(10)))
            .expect("set timeout");
        stream
    }
}

impl Drop for TestServer {
    fn drop(&mut self) {
        self.stop.stop();
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// The protocol and transport of a test client.
#[derive(Clone, Copy, Debug)]
pub struct ClientFormat {
    /// Compact protocol rather than binary.
    pub compact: bool,
    /// Framed transport rather than buffered.
    pub framed: bool,
}

/// Every combination of protocol and transport.
pub const ALL_FORMATS: [ClientFormat; 4] = [
    ClientFormat {
        compact: false,
        framed: false,
    },
    ClientFormat {
        compact: false,
        framed: true,
    },
    ClientFormat {
        compact: true,
        framed: false,
    },
    ClientFormat {
        compact: true,
        framed: true,
    },
];

/// The client type the generated code offers, over boxed protocols.
pub type Client =
    ThriftHiveMetastoreSyncClient<Box<dyn TInputProtocol + Send>, Box<dyn TOutputProtocol + Send>>;

/// A generated client connected to `addr` in `format`.
pub fn client(addr: SocketAddr, format: ClientFormat) -> Client {
    let stream = TcpStream::connect(addr).expect("connect");
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .expect("set timeout");
    let (read, write) = TTcpChannel::with_stream(stream).split().expect("split");
    let (input, output): (
        Box<dyn TInputProtocol + Send>,
        Box<dyn TOutputProtocol + Send>,
    ) = match (format.compact, format.framed) {
        (false, false) => (
            Box::new(TBinaryInputProtocol::new(
                TBufferedReadTransport::new(read),
                true,
            )),
            Box::new(TBinaryOutputProtocol::new(
                TBufferedWriteTransport::new(write),
                true,
            )),
        ),
        (false, true) => (
            Box::new(TBinaryInputProtocol::new(
                TFramedReadTransport::new(read),
                true,
            )),
            Box::new(TBinaryOutputProtocol::new(
                TFramedWriteTransport::new(write),
                true,
            )),
        ),
        (true, false) => (
            Box::new(TCompactInputProtocol::new(TBufferedReadTransport::new(
                read,
            ))),
            Box::new(TCompactOutputProtocol::new(TBufferedWriteTransport::new(
                write,
            ))),
        ),
        (true, true) => (
            Box::new(TCompactInputProtocol::new(TFramedReadTransport::new(read))),
            Box::new(TCompactOutputProtocol::new(TFramedWriteTransport::new(
                write,
            ))),
        ),
    };
    ThriftHiveMetastoreSyncClient::new(input, output)
}
