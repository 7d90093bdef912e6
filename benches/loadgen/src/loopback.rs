//! The loopback limit: how fast a listing's bytes could come at best. Threads of the bench
//! process play server and client over loopback TCP: for each sample, the client sends a
//! small request per call and the server answers with as many bytes as the measured
//! workload's replies held (the mean per sample, split over its calls); the client reads them
//! through a read buffer of the size its Thrift connections use, without decoding. A
//! metastore's listing rate divided by this rate says how close it comes to the socket.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Barrier;
use std::time::{Duration, Instant};

use crate::endpoint::{CALL_TIMEOUT, SOCKET_BUFFER_BYTES};

/// The longest reply the limit is measured for: a positive `i32`, as a Thrift message.
pub const REPLY_BYTES_MAX: u64 = i32::MAX as u64;
/// The most calls per sample.
pub const CALLS_PER_SAMPLE_MAX: u64 = 1_000_000;
/// The bytes the server thread writes at once.
const WRITE_BYTES_MAX: usize = 1 << 20;
/// The request: one byte per call, which the server answers.
const REQUEST: [u8; 1] = [b'?'];

/// What one loopback sample carries: `call_count` replies of `reply_bytes` in all.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shape {
    /// Replies per sample.
    pub call_count: u64,
    /// Bytes of all the sample's replies.
    pub reply_bytes: u64,
}

impl Shape {
    /// The bytes of reply `call` (0-based) of a sample: an even split, the rest on the last.
    fn reply_bytes_of(&self, call: u64) -> u64 {
        let each = self.reply_bytes / self.call_count;
        if call + 1 == self.call_count {
            self.reply_bytes - each * (self.call_count - 1)
        } else {
            each
        }
    }
}

/// What the loopback measurement found.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LoopbackRate {
    /// Samples made.
    pub sample_count: u64,
    /// Reply bytes per second over all connections.
    pub bytes_per_second: f64,
}

/// Measures the rate of samples of `shape` over `connection_count` loopback connections,
/// each a client thread and a server thread, until `duration` has passed (after one sample
/// per connection at least) or `sample_count_max` samples are made.
///
/// # Panics
/// If `shape` has no call, more than [`CALLS_PER_SAMPLE_MAX`] calls, or more than
/// [`REPLY_BYTES_MAX`] bytes per call; or without a connection.
pub fn measure(
    shape: Shape,
    connection_count: usize,
    duration: Duration,
    sample_count_max: u64,
) -> std::io::Result<LoopbackRate> {
    assert!((1..=CALLS_PER_SAMPLE_MAX).contains(&shape.call_count));
    assert!(shape.reply_bytes / shape.call_count < REPLY_BYTES_MAX);
    assert!(connection_count > 0, "a measurement has a connection");
    let listener = TcpListener::bind("127.0.0.1:0")?;
    let address = listener.local_addr()?;
    let mut pairs = Vec::with_capacity(connection_count);
    for _ in 0..connection_count {
        let client = TcpStream::connect(address)?;
        let (server, _) = listener.accept()?;
        for stream in [&client, &server] {
            stream.set_nodelay(true)?;
            stream.set_read_timeout(Some(CALL_TIMEOUT))?;
            stream.set_write_timeout(Some(CALL_TIMEOUT))?;
        }
        pairs.push((client, server));
    }
    let start_line = Barrier::new(connection_count);
    let issued = AtomicU64::new(0);
    let results: Vec<std::io::Result<(u64, Duration)>> = std::thread::scope(|scope| {
        let threads: Vec<_> = pairs
            .into_iter()
            .map(|(client, server)| {
                scope.spawn(|| serve(server, shape));
                let (start_line, issued) = (&start_line, &issued);
                scope.spawn(move || {
                    start_line.wait();
                    read_replies(client, shape, duration, issued, sample_count_max)
                })
            })
            .collect();
        threads
            .into_iter()
            .map(|thread| {
                thread
                    .join()
                    .unwrap_or_else(|_| Err(std::io::Error::other("a loopback thread panicked")))
            })
            .collect()
    });
    let mut sample_count = 0;
    let mut elapsed = Duration::ZERO;
    for result in results {
        let (samples, took) = result?;
        sample_count += samples;
        elapsed = elapsed.max(took);
    }
    let bytes = sample_count as f64 * shape.reply_bytes as f64;
    Ok(LoopbackRate {
        sample_count,
        bytes_per_second: bytes / elapsed.as_secs_f64().max(1e-9),
    })
}

/// The server thread: for each request byte, a reply of the next call's size. Ends when the
/// client closes its end.
fn serve(mut stream: TcpStream, shape: Shape) -> std::io::Result<()> {
    let write_bytes = (shape.reply_bytes / shape.call_count).min(WRITE_BYTES_MAX as u64);
    let buffer = vec![0x5a; usize::try_from(write_bytes).unwrap_or(WRITE_BYTES_MAX) + 1];
    let mut request = [0u8; 1];
    let mut call = 0;
    loop {
        if stream.read(&mut request)? == 0 {
            return Ok(());
        }
        let mut left = shape.reply_bytes_of(call);
        while left > 0 {
            let now = left.min(buffer.len() as u64) as usize;
            stream.write_all(&buffer[..now])?;
            left -= now as u64;
        }
        call = (call + 1) % shape.call_count;
    }
}

/// The client thread: samples of requests and whole replies, read through a buffer as the
/// Thrift connections read, until the time or the shared sample cap runs out. Returns its
/// samples and the time they took.
fn read_replies(
    stream: TcpStream,
    shape: Shape,
    duration: Duration,
    issued: &AtomicU64,
    sample_count_max: u64,
) -> std::io::Result<(u64, Duration)> {
    let mut writer = stream.try_clone()?;
    let mut reader = BufReader::with_capacity(SOCKET_BUFFER_BYTES, stream);
    let start = Instant::now();
    let deadline = start + duration;
    let mut sample_count = 0;
    loop {
        let first = sample_count == 0;
        if !first && Instant::now() >= deadline {
            break;
        }
        if issued.fetch_add(1, Ordering::Relaxed) >= sample_count_max && !first {
            break;
        }
        for call in 0..shape.call_count {
            writer.write_all(&REQUEST)?;
            read_exactly(&mut reader, shape.reply_bytes_of(call))?;
        }
        sample_count += 1;
    }
    Ok((sample_count, start.elapsed()))
}

/// Reads and drops `bytes` bytes from the buffer, refilling it from the socket.
fn read_exactly(reader: &mut BufReader<TcpStream>, mut bytes: u64) -> std::io::Result<()> {
    while bytes > 0 {
        let available = reader.fill_buf()?.len();
        if available == 0 {
            return Err(std::io::ErrorKind::UnexpectedEof.into());
        }
        let taken = available.min(usize::try_from(bytes).unwrap_or(usize::MAX));
        reader.consume(taken);
        bytes -= taken as u64;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replies_split_evenly_with_the_rest_on_the_last() {
        let shape = Shape {
            call_count: 3,
            reply_bytes: 10,
        };
        let sizes: Vec<u64> = (0..3).map(|call| shape.reply_bytes_of(call)).collect();
        assert_eq!(sizes, vec![3, 3, 4]);
    }

    #[test]
    fn a_loopback_run_makes_at_least_one_sample_per_connection_and_stops_at_the_cap() {
        let shape = Shape {
            call_count: 2,
            reply_bytes: 300_000,
        };
        let rate = measure(shape, 2, Duration::ZERO, 1).unwrap();
        assert_eq!(rate.sample_count, 2, "one each, though the time was up");
        assert!(rate.bytes_per_second > 0.0);
        let rate = measure(shape, 1, Duration::from_secs(30), 5).unwrap();
        assert_eq!(rate.sample_count, 5);
    }
}
