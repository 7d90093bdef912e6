//! The one way a client's socket is read and written: [`CountedSocket`], which counts the bytes
//! each way for the server's counters (`bytes.read`, `bytes.written`), whichever thread holds
//! the connection (the poller, a worker, a thread of its own, TLS under it).

use std::io::{self, Read, Write};
use std::net::TcpStream;

use crate::counters::Counters;

/// A client's socket, its bytes counted.
pub(crate) struct CountedSocket<'a> {
    stream: &'a TcpStream,
    counters: &'a Counters,
}

impl<'a> CountedSocket<'a> {
    /// `stream`, counted in `counters`.
    pub(crate) fn new(stream: &'a TcpStream, counters: &'a Counters) -> Self {
        CountedSocket { stream, counters }
    }
}

impl Read for CountedSocket<'_> {
    fn read(&mut self, buffer: &mut [u8]) -> io::Result<usize> {
        let count = (&*self.stream).read(buffer)?;
        self.counters.record_bytes_read(count);
        Ok(count)
    }
}

impl Write for CountedSocket<'_> {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        let count = (&*self.stream).write(bytes)?;
        self.counters.record_bytes_written(count);
        Ok(count)
    }

    fn flush(&mut self) -> io::Result<()> {
        (&*self.stream).flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::net::TcpListener;

    #[test]
    fn bytes_are_counted_each_way() {
        // Goal: what goes through the socket is what the counters show. Method: a loopback
        // pair, a few bytes each way.
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let mut client = TcpStream::connect(listener.local_addr().unwrap()).unwrap();
        let (server, _) = listener.accept().unwrap();
        let counters = Counters::default();
        let mut socket = CountedSocket::new(&server, &counters);
        socket.write_all(b"hello").unwrap();
        let mut arrived = [0u8; 5];
        client.read_exact(&mut arrived).unwrap();
        client.write_all(b"abc").unwrap();
        let mut read = [0u8; 3];
        socket.read_exact(&mut read).unwrap();
        let wire = counters.wire();
        assert_eq!((wire.bytes_written, wire.bytes_read), (5, 3));
    }
}
