//! A server running on loopback for the duration of a test, and connections to it; shared by
//! the integration tests that talk to a real listener.

use std::io;
use std::net::{SocketAddr, TcpStream};
use std::sync::Arc;
use std::thread;
use std::time::Duration;

use hivestore_thrift::limits::Limits;
use hivestore_thrift::server::{Server, StopHandle};
use hivestore_thrift::service::ServerState;

/// Longest any read of a test waits.
pub const WAIT: Duration = Duration::from_secs(10);

/// A server serving on a thread of its own; stopped and joined when dropped.
pub struct Running {
    pub address: SocketAddr,
    pub state: Arc<ServerState>,
    stop: StopHandle,
    serving: Option<thread::JoinHandle<io::Result<()>>>,
}

impl Drop for Running {
    fn drop(&mut self) {
        self.stop.stop();
        if let Some(serving) = self.serving.take() {
            let _ = serving.join();
        }
    }
}

/// Serves `state` on a free loopback port under `limits`.
pub fn serve(state: Arc<ServerState>, limits: Limits) -> Running {
    let server = Server::bind("127.0.0.1:0", limits, Arc::clone(&state)).unwrap();
    let address = server.local_addr();
    let stop = server.stop_handle();
    let serving = Some(thread::spawn(move || server.run()));
    Running {
        address,
        state,
        stop,
        serving,
    }
}

/// A connection to `address` whose reads wait at most [`WAIT`].
pub fn connect(address: SocketAddr) -> TcpStream {
    let stream = TcpStream::connect_timeout(&address, WAIT).unwrap();
    stream.set_read_timeout(Some(WAIT)).unwrap();
    stream
}
