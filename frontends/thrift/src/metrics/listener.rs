//! The metrics port's HTTP/1.1 listener: one thread accepts (epoll through `mio`, woken to
//! stop), each connection is answered on a thread of its own, one request then closed.
//!
//! Bounded so that a scraper, slow or hostile, costs only its own connection: at most
//! [`METRICS_CONNECTIONS_MAX`] connections at once (more are closed on accept), a request head
//! of at most [`HTTP_HEAD_BYTES_MAX`](crate::limits::HTTP_HEAD_BYTES_MAX) bytes (read and parsed as the metastore port's HTTP
//! transport reads them, `crate::http`) that must arrive within [`METRICS_HEAD_DEADLINE`], and
//! a reply the client must take within [`METRICS_WRITE_TIMEOUT`].

use std::io::{self, Read};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::os::fd::AsRawFd;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant};

use mio::unix::SourceFd;
use mio::{Events, Interest, Poll, Token, Waker};

use super::exposition::CONTENT_TYPE;
use super::{MetricsSource, Readiness};
use crate::http::{parse_head, read_head, respond, HeadRead, Refusal};

/// Most metrics connections served at once; a scraper needs one.
pub const METRICS_CONNECTIONS_MAX: usize = 16;
/// Time a request head may take to arrive, from the connection's accept.
pub const METRICS_HEAD_DEADLINE: Duration = Duration::from_secs(5);
/// Time the client may take to take (part of) the reply, per write.
pub const METRICS_WRITE_TIMEOUT: Duration = Duration::from_secs(5);
/// Stack of a connection's thread: it only formats text.
const CONNECTION_STACK_BYTES: usize = 256 * 1024;

const LISTENER: Token = Token(0);
const WAKER: Token = Token(1);
const TEXT: &str = "text/plain; charset=utf-8";

/// A bound metrics listener, not serving yet.
pub struct MetricsServer {
    listener: TcpListener,
    local_addr: SocketAddr,
    source: Arc<MetricsSource>,
}

/// Stops a serving metrics listener.
pub struct MetricsHandle {
    stopping: Arc<AtomicBool>,
    waker: Arc<Waker>,
    accepting: JoinHandle<()>,
}

impl MetricsServer {
    /// Binds `listen` (port 0 picks a free port).
    pub fn bind(listen: &str, source: Arc<MetricsSource>) -> io::Result<MetricsServer> {
        let listener = TcpListener::bind(listen)?;
        listener.set_nonblocking(true)?;
        let local_addr = listener.local_addr()?;
        Ok(MetricsServer {
            listener,
            local_addr,
            source,
        })
    }

    /// The address it listens on.
    pub fn local_addr(&self) -> SocketAddr {
        self.local_addr
    }

    /// Serves on a thread of its own until [`MetricsHandle::stop`].
    pub fn spawn(self) -> io::Result<MetricsHandle> {
        let poll = Poll::new()?;
        let waker = Arc::new(Waker::new(poll.registry(), WAKER)?);
        poll.registry().register(
            &mut SourceFd(&self.listener.as_raw_fd()),
            LISTENER,
            Interest::READABLE,
        )?;
        let stopping = Arc::new(AtomicBool::new(false));
        let accepting = thread::Builder::new().name("metrics".to_string()).spawn({
            let stopping = Arc::clone(&stopping);
            move || self.accept_until_stopped(poll, &stopping)
        })?;
        Ok(MetricsHandle {
            stopping,
            waker,
            accepting,
        })
    }

    fn accept_until_stopped(self, mut poll: Poll, stopping: &AtomicBool) {
        tracing::info!(listen = %self.local_addr, "serving metrics and health over HTTP");
        let open = Arc::new(AtomicUsize::new(0));
        let mut events = Events::with_capacity(16);
        while !stopping.load(Ordering::Acquire) {
            if let Err(error) = poll.poll(&mut events, None) {
                if error.kind() != io::ErrorKind::Interrupted {
                    tracing::error!(%error, "the metrics listener failed; metrics are no longer served");
                    return;
                }
            }
            if events.iter().any(|event| event.token() == LISTENER) {
                self.accept_all(&open);
            }
        }
    }

    fn accept_all(&self, open: &Arc<AtomicUsize>) {
        loop {
            let (stream, peer) = match self.listener.accept() {
                Ok(accepted) => accepted,
                Err(error) if error.kind() == io::ErrorKind::WouldBlock => return,
                Err(error) if error.kind() == io::ErrorKind::Interrupted => continue,
                Err(error) => {
                    tracing::warn!(%error, "metrics accept failed");
                    // Out of descriptors and the like: let the next event retry.
                    thread::sleep(Duration::from_millis(50));
                    return;
                }
            };
            let taken = open.fetch_update(Ordering::AcqRel, Ordering::Acquire, |count| {
                (count < METRICS_CONNECTIONS_MAX).then_some(count + 1)
            });
            if taken.is_err() {
                tracing::warn!(%peer, cap = METRICS_CONNECTIONS_MAX, "metrics connection refused: at the cap");
                continue;
            }
            let slot = OpenSlot(Arc::clone(open));
            let source = Arc::clone(&self.source);
            let started = thread::Builder::new()
                .name("metrics-http".to_string())
                .stack_size(CONNECTION_STACK_BYTES)
                .spawn(move || {
                    let _slot = slot;
                    if let Err(reason) = serve_connection(&stream, &source) {
                        tracing::debug!(%peer, %reason, "metrics connection closed");
                    }
                });
            if let Err(error) = started {
                tracing::warn!(%peer, %error, "could not start a thread for a metrics connection");
            }
        }
    }
}

impl MetricsHandle {
    /// Stops accepting and waits for the accepting thread; a connection being answered ends
    /// within its deadlines.
    pub fn stop(self) {
        self.stopping.store(true, Ordering::Release);
        if let Err(error) = self.waker.wake() {
            tracing::error!(%error, "could not wake the metrics listener");
            return;
        }
        let _ = self.accepting.join();
    }
}

/// A connection's place under the cap, given back when its thread ends.
struct OpenSlot(Arc<AtomicUsize>);

impl Drop for OpenSlot {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::AcqRel);
    }
}

/// The socket, read within a deadline for the whole head.
struct HeadReader<'a> {
    stream: &'a TcpStream,
    until: Instant,
}

impl Read for HeadReader<'_> {
    fn read(&mut self, buffer: &mut [u8]) -> io::Result<usize> {
        let left = self.until.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(io::Error::new(
                io::ErrorKind::TimedOut,
                format!(
                    "no whole request head within {} s",
                    METRICS_HEAD_DEADLINE.as_secs()
                ),
            ));
        }
        self.stream.set_read_timeout(Some(left))?;
        (&*self.stream).read(buffer)
    }
}

/// Answers one request on `stream`, then closes it; `Err` says why it ended early.
fn serve_connection(stream: &TcpStream, source: &MetricsSource) -> Result<(), String> {
    stream
        .set_nonblocking(false)
        .and_then(|()| stream.set_write_timeout(Some(METRICS_WRITE_TIMEOUT)))
        .map_err(|error| error.to_string())?;
    let mut reader = HeadReader {
        stream,
        until: Instant::now() + METRICS_HEAD_DEADLINE,
    };
    let mut buffer = Vec::new();
    let answer = match read_head(&mut reader, &mut buffer) {
        Ok(end) => {
            parse_head(&buffer[..end]).map(|head| answer(&head.method, &head.target, source))
        }
        Err(HeadRead::Closed) => return Ok(()),
        Err(HeadRead::Failed(reason)) => return Err(reason),
        Err(HeadRead::Refused(refusal)) => Err(refusal),
    };
    let answer = answer.unwrap_or_else(Answer::refused);
    let allow = answer.allow.map(|allow| ("Allow", allow));
    let mut writer = stream;
    respond(
        &mut writer,
        answer.status,
        answer.content_type,
        &allow.into_iter().collect::<Vec<_>>(),
        answer.body.as_bytes(),
        false,
    )
    .map_err(|error| error.to_string())?;
    let _ = stream.shutdown(std::net::Shutdown::Both);
    Ok(())
}

/// What a request is answered with.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Answer {
    status: u16,
    content_type: &'static str,
    body: String,
    /// The methods served, for a 405.
    allow: Option<&'static str>,
}

impl Answer {
    fn text(status: u16, body: impl Into<String>) -> Answer {
        Answer {
            status,
            content_type: TEXT,
            body: body.into(),
            allow: None,
        }
    }

    fn refused(refusal: Refusal) -> Answer {
        Answer::text(refusal.status, format!("{}\n", refusal.text))
    }
}

/// The answer to `method` on `target` (its query, if any, ignored).
pub(crate) fn answer(method: &str, target: &str, source: &MetricsSource) -> Answer {
    let path = target.split('?').next().unwrap_or_default();
    if !matches!(path, "/metrics" | "/health" | "/ready") {
        return Answer::text(
            404,
            "not found: the paths served are /metrics, /health, /ready\n",
        );
    }
    if method != "GET" {
        let mut answer = Answer::text(405, format!("{path} answers GET only\n"));
        answer.allow = Some("GET");
        return answer;
    }
    match path {
        "/metrics" => Answer {
            content_type: CONTENT_TYPE,
            ..Answer::text(200, source.render())
        },
        "/health" => Answer::text(200, "alive\n"),
        _ => match source.readiness() {
            Readiness::Ready => Answer::text(200, format!("ready{}\n", source.following_note())),
            Readiness::NotReady(reason) => Answer::text(503, format!("not ready: {reason}\n")),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::limits::HTTP_HEAD_BYTES_MAX;
    use std::io::Write;

    #[test]
    fn paths_and_methods_are_answered_as_documented() {
        let source = MetricsSource::new();
        assert_eq!(answer("GET", "/health", &source).status, 200);
        let ready = answer("GET", "/ready", &source);
        assert_eq!(ready.status, 503);
        assert!(ready.body.contains("the store is opening"), "{ready:?}");
        let metrics = answer("GET", "/metrics?x=1", &source);
        assert_eq!((metrics.status, metrics.content_type), (200, CONTENT_TYPE));
        assert!(metrics
            .body
            .contains("# TYPE hivestore_uptime_seconds gauge"));
        let post = answer("POST", "/metrics", &source);
        assert_eq!((post.status, post.allow), (405, Some("GET")));
        assert_eq!(answer("HEAD", "/ready", &source).status, 405);
        assert_eq!(answer("GET", "/", &source).status, 404);
        assert_eq!(answer("DELETE", "/nope", &source).status, 404);
    }

    fn exchange(address: SocketAddr, request: &[u8]) -> String {
        let mut client = TcpStream::connect(address).unwrap();
        client
            .set_read_timeout(Some(Duration::from_secs(10)))
            .unwrap();
        // The server may close before it read everything (a head too long): a failed write
        // is part of what is tested.
        let _ = client.write_all(request);
        let _ = client.shutdown(std::net::Shutdown::Write);
        let mut reply = String::new();
        let _ = client.read_to_string(&mut reply);
        reply
    }

    #[test]
    fn bad_requests_are_refused_and_the_listener_goes_on_until_stopped() {
        // Goal: garbage, an oversized head and a cut request each cost only their connection.
        // Method: a listener on loopback, one bad request of each kind, then a good one.
        let server = MetricsServer::bind("127.0.0.1:0", MetricsSource::new()).unwrap();
        let address = server.local_addr();
        let handle = server.spawn().unwrap();
        let garbage = exchange(address, b"\x00\x01garbage\r\n\r\n");
        assert!(garbage.starts_with("HTTP/1.1 400 "), "{garbage}");
        let mut huge = b"GET /metrics HTTP/1.1\r\nX: ".to_vec();
        huge.resize(HTTP_HEAD_BYTES_MAX + 1024, b'a');
        let huge = exchange(address, &huge);
        assert!(huge.starts_with("HTTP/1.1 431 "), "{huge}");
        let cut = exchange(address, b"GET /heal");
        assert_eq!(cut, "", "a head cut short gets no answer");
        let health = exchange(address, b"GET /health HTTP/1.1\r\nHost: x\r\n\r\n");
        assert!(health.starts_with("HTTP/1.1 200 OK\r\n"), "{health}");
        assert!(health.ends_with("\r\n\r\nalive\n"), "{health}");
        handle.stop();
        assert!(
            TcpStream::connect(address).is_err(),
            "stopped listeners close their port"
        );
    }
}
