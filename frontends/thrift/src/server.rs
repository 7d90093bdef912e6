//! The listener: one poller thread that holds every connection waiting for a request, a
//! bounded pool of workers that answer whole requests, a cap on connections, and a graceful
//! stop.
//!
//! Metastore clients hold connections open for hours, mostly silent. A parked connection costs
//! its socket, its session and the bytes of a request that started arriving (no thread, no
//! buffer when idle); see `connection.rs` for how a connection moves between the poller,
//! the workers and, for a big request, a thread of its own. The poller also closes connections
//! whose deadline passed ([`crate::activity`]) and, at the cap, the parked connection that has
//! waited longest for its next request, so that idle or slow sockets never keep clients out.
//! A TLS connection has a thread of its own for its whole life ([`crate::tls`]), counted
//! against the same cap and evicted the same way; so has an HTTP one ([`crate::http`]).

use std::collections::{HashMap, VecDeque};
use std::io;
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::os::fd::AsRawFd;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex, OnceLock, PoisonError};
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant};

use mio::unix::SourceFd;
use mio::{Events, Interest, Poll, Token, Waker};

use crate::activity::{eviction_choice, Activity};
pub use crate::connection::serve_stream;
use crate::connection::{Connection, Readable, Turn};
use crate::detect::Handshake;
use crate::limits::Limits;
use crate::message::READ_BYTES_MIN;
use crate::service::{Listening, ServerState};
use crate::tls::{Tls, PLAIN_REFUSED, TLS_NOT_CONFIGURED};

/// Stack of a worker or big-request thread; decoding is bounded in depth, so this is ample.
const WORKER_STACK_BYTES: usize = 2 * 1024 * 1024;
/// How long a stop waits for calls in flight before it gives up on them.
const STOP_GRACE: Duration = Duration::from_secs(10);
/// How long a stop waits for idle workers to end, once calls in flight are over.
const WORKERS_END_WAIT: Duration = Duration::from_secs(1);
/// How often the poller looks for connections past their deadline.
const DEADLINE_SCAN: Duration = Duration::from_millis(250);
const LISTENER: Token = Token(usize::MAX - 1);
const WAKER: Token = Token(usize::MAX - 2);

/// A bound, not yet serving, metastore server.
pub struct Server {
    listener: TcpListener,
    local_addr: SocketAddr,
    limits: Limits,
    state: Arc<ServerState>,
    shared: Arc<Shared>,
    /// TLS, when the server serves it.
    tls: Option<Arc<Tls>>,
    /// Why a plain Thrift connection is refused, when it is (TLS only, or authentication
    /// required).
    plain_refused: Option<String>,
}

/// What the poller, the workers and the stop handle share.
struct Shared {
    /// Set once a stop was asked for; no connection is accepted after it.
    stopping: Arc<AtomicBool>,
    /// Wakes the poller: a stop, or connections handed back.
    waker: OnceLock<Waker>,
    /// Connections the workers are done with, for the poller.
    handed_back: Mutex<Vec<(Connection, Turn)>>,
    /// Connections waiting for a worker, and whether the workers are to end.
    queue: Mutex<(VecDeque<Connection>, bool)>,
    ready: Condvar,
    /// Connections receiving a big request on a thread of their own, by id: they too may be
    /// closed to make room while their request arrives.
    big: Mutex<HashMap<u64, BigRequest>>,
    /// Connections lost on the way back (a thread that could not start).
    lost: AtomicUsize,
}

/// A connection receiving a big request, as the poller sees it.
struct BigRequest {
    stream: Arc<TcpStream>,
    activity: Arc<Activity>,
}

impl Shared {
    fn wake(&self) {
        if let Some(waker) = self.waker.get() {
            if let Err(error) = waker.wake() {
                tracing::error!(%error, "could not wake the poller");
            }
        }
    }

    /// Gives a connection back to the poller after its turn.
    fn hand_back(&self, connection: Connection, turn: Turn) {
        lock(&self.big).remove(&connection.id);
        lock(&self.handed_back).push((connection, turn));
        self.wake();
    }
}

/// Stops a running server from another thread (a signal handler's thread, a test).
#[derive(Clone)]
pub struct StopHandle {
    shared: Arc<Shared>,
}

impl StopHandle {
    /// Stops accepting, closes every connection waiting for a request, and lets calls in
    /// flight finish. [`Server::run`] returns once they have.
    pub fn stop(&self) {
        if self.shared.stopping.swap(true, Ordering::SeqCst) {
            return;
        }
        self.shared.wake();
    }
}

impl Server {
    /// Binds `listen` (port 0 picks a free port).
    pub fn bind(listen: &str, limits: Limits, state: Arc<ServerState>) -> io::Result<Server> {
        Server::bind_with_tls(listen, limits, state, None)
    }

    /// Binds `listen`, serving TLS with `tls` (see [`crate::tls`]) when given.
    pub fn bind_with_tls(
        listen: &str,
        limits: Limits,
        state: Arc<ServerState>,
        tls: Option<Arc<Tls>>,
    ) -> io::Result<Server> {
        limits
            .validate()
            .map_err(|reason| io::Error::new(io::ErrorKind::InvalidInput, reason))?;
        let listener = TcpListener::bind(listen)?;
        listener.set_nonblocking(true)?;
        let local_addr = listener.local_addr()?;
        let tls_only = tls.as_ref().is_some_and(|tls| !tls.settings().allow_plain);
        let plain_refused = if tls_only {
            Some(PLAIN_REFUSED.to_string())
        } else {
            state.auth().plain_refused()
        };
        state.set_listening(Listening {
            port: local_addr.port(),
            limits,
            tls: tls.is_some(),
        });
        Ok(Server {
            listener,
            local_addr,
            limits,
            state,
            shared: Arc::new(Shared {
                stopping: Arc::new(AtomicBool::new(false)),
                waker: OnceLock::new(),
                handed_back: Mutex::new(Vec::new()),
                queue: Mutex::new((VecDeque::new(), false)),
                ready: Condvar::new(),
                big: Mutex::new(HashMap::new()),
                lost: AtomicUsize::new(0),
            }),
            tls,
            plain_refused,
        })
    }

    /// The address the server listens on.
    pub fn local_addr(&self) -> SocketAddr {
        self.local_addr
    }

    /// A handle that stops this server.
    pub fn stop_handle(&self) -> StopHandle {
        StopHandle {
            shared: Arc::clone(&self.shared),
        }
    }

    /// Serves until stopped, then waits (boundedly) for open calls to finish.
    pub fn run(self) -> io::Result<()> {
        let poll = Poll::new()?;
        let waker = Waker::new(poll.registry(), WAKER)?;
        if self.shared.waker.set(waker).is_err() {
            return Err(io::Error::other("a server runs once"));
        }
        poll.registry().register(
            &mut SourceFd(&self.listener.as_raw_fd()),
            LISTENER,
            Interest::READABLE,
        )?;
        let workers = (0..self.limits.worker_threads)
            .map(|index| self.spawn_worker(index))
            .collect::<io::Result<Vec<_>>>()?;
        tracing::info!(
            listen = %self.local_addr,
            workers = workers.len(),
            "hivestore is serving"
        );
        let mut poller = Poller {
            server: &self,
            poll,
            parked: HashMap::new(),
            away: 0,
            next_id: 0,
            scratch: vec![0; READ_BYTES_MIN],
        };
        // Stopping was perhaps asked for before the waker existed.
        if !self.shared.stopping.load(Ordering::SeqCst) {
            poller.serve()?;
        }
        poller.finish();
        {
            let mut queue = lock(&self.shared.queue);
            queue.1 = true;
        }
        self.shared.ready.notify_all();
        // Idle workers end at once; one still in a call past the grace is left behind.
        let deadline = Instant::now() + WORKERS_END_WAIT;
        for worker in workers {
            while !worker.is_finished() && Instant::now() < deadline {
                thread::sleep(Duration::from_millis(1));
            }
            if worker.is_finished() {
                let _ = worker.join();
            }
        }
        tracing::info!("hivestore stopped");
        Ok(())
    }

    fn spawn_worker(&self, index: usize) -> io::Result<JoinHandle<()>> {
        let shared = Arc::clone(&self.shared);
        let limits = self.limits;
        thread::Builder::new()
            .name(format!("worker-{index}"))
            .stack_size(WORKER_STACK_BYTES)
            .spawn(move || {
                let mut reply = Vec::new();
                while let Some(mut connection) = next_job(&shared) {
                    match connection.serve_turn(&mut reply, &limits, false) {
                        Turn::Big => spawn_big(connection, Arc::clone(&shared), limits),
                        turn => shared.hand_back(connection, turn),
                    }
                }
            })
    }
}

/// The next connection for a worker; `None` once the workers are to end.
fn next_job(shared: &Shared) -> Option<Connection> {
    let mut queue = lock(&shared.queue);
    loop {
        if let Some(connection) = queue.0.pop_front() {
            return Some(connection);
        }
        if queue.1 {
            return None;
        }
        queue = shared
            .ready
            .wait(queue)
            .unwrap_or_else(PoisonError::into_inner);
    }
}

/// Gives a big request's connection a thread of its own for the turn.
fn spawn_big(connection: Connection, shared: Arc<Shared>, limits: Limits) {
    spawn_own(connection, shared, "request", move |connection, _| {
        connection.serve_turn(&mut Vec::new(), &limits, true)
    });
}

/// Gives a TLS connection a thread of its own for its whole life: the handshake, then every
/// request.
fn spawn_tls(connection: Connection, tls: &Tls, shared: Arc<Shared>, limits: Limits) {
    let config = tls.config();
    spawn_own(connection, shared, "tls", move |connection, shared| {
        let handoff = connection.handoff(&shared.stopping);
        let served = crate::tls::serve(handoff, config, limits);
        let reason = match served {
            Err(_) if connection.activity.evicted() => None,
            Err(reason) => Some(reason),
            Ok(()) => None,
        };
        Turn::Close(reason)
    });
}

/// Gives a connection that opened with a handshake other than TLS's (SASL, HTTP) a thread of
/// its own for its whole life: the handshake, then every request.
fn spawn_handoff(connection: Connection, shared: Arc<Shared>, limits: Limits) {
    spawn_own(
        connection,
        shared,
        "handshake",
        move |connection, shared| {
            let handoff = connection.handoff(&shared.stopping);
            let reason = match crate::connection::serve_handoff(handoff, limits) {
                Err(_) if connection.activity.evicted() => None,
                Err(reason) => Some(reason),
                Ok(()) => None,
            };
            Turn::Close(reason)
        },
    );
}

/// Runs `serve` on a thread of its own named `name`, then hands the connection back with the
/// turn it returned. While away the connection is counted, evicted and stopped through
/// `shared.big`.
fn spawn_own(
    mut connection: Connection,
    shared: Arc<Shared>,
    name: &'static str,
    serve: impl FnOnce(&mut Connection, &Shared) -> Turn + Send + 'static,
) {
    let id = connection.id;
    lock(&shared.big).insert(
        id,
        BigRequest {
            stream: Arc::clone(&connection.stream),
            activity: Arc::clone(&connection.activity),
        },
    );
    let started = thread::Builder::new()
        .name(format!("{name}-{id}"))
        .stack_size(WORKER_STACK_BYTES)
        .spawn({
            let shared = Arc::clone(&shared);
            move || {
                let turn = serve(&mut connection, &shared);
                shared.hand_back(connection, turn);
            }
        });
    if let Err(error) = started {
        tracing::error!(connection = id, %error, "could not start a thread ({name}) for a connection");
        lock(&shared.big).remove(&id);
        shared.lost.fetch_add(1, Ordering::AcqRel);
        shared.wake();
    }
}

/// The poller's own state: the connections parked with it, and how many are away.
struct Poller<'a> {
    server: &'a Server,
    poll: Poll,
    parked: HashMap<usize, Connection>,
    /// Connections on a worker or a thread of their own.
    away: usize,
    next_id: u64,
    /// Where arriving bytes are read before they go to their connection's buffer.
    scratch: Vec<u8>,
}

impl Poller<'_> {
    fn serve(&mut self) -> io::Result<()> {
        let mut events = Events::with_capacity(1024);
        let mut last_scan = Instant::now();
        loop {
            if let Err(error) = self.poll.poll(&mut events, Some(DEADLINE_SCAN)) {
                if error.kind() != io::ErrorKind::Interrupted {
                    return Err(error);
                }
            }
            for event in &events {
                match event.token() {
                    LISTENER => self.accept_all(),
                    WAKER => self.take_back(),
                    Token(token) => self.readable(token),
                }
            }
            if self.server.shared.stopping.load(Ordering::SeqCst) {
                return Ok(());
            }
            if last_scan.elapsed() >= DEADLINE_SCAN {
                self.close_past_deadlines();
                // Connections left waiting by a failed accept are not announced again.
                self.accept_all();
                last_scan = Instant::now();
            }
        }
    }

    fn limits(&self) -> &Limits {
        &self.server.limits
    }

    fn accept_all(&mut self) {
        loop {
            let (stream, peer) = match self.server.listener.accept() {
                Ok(accepted) => accepted,
                Err(error) if error.kind() == io::ErrorKind::WouldBlock => return,
                Err(error) if error.kind() == io::ErrorKind::Interrupted => continue,
                Err(error) => {
                    // Out of descriptors and the like: back off instead of spinning.
                    tracing::warn!(%error, "accept failed");
                    thread::sleep(Duration::from_millis(50));
                    return;
                }
            };
            if !self.make_room() {
                self.server.state.counters.record_connection_refused();
                tracing::warn!(
                    %peer,
                    cap = self.limits().connections_max,
                    "connection refused: the server is at its connection cap, every connection in a call"
                );
                continue;
            }
            if let Err(error) = self.open(stream, peer) {
                tracing::warn!(%peer, %error, "could not set up a connection");
            }
        }
    }

    fn open(&mut self, stream: TcpStream, peer: SocketAddr) -> io::Result<()> {
        stream.set_nodelay(true)?;
        let id = self.next_id;
        self.next_id += 1;
        let server = self.server;
        let connection = Connection::new(
            id,
            stream,
            peer,
            &server.state,
            server.limits,
            &server.shared.stopping,
        );
        // Registered once: events that come while the connection is away are ignored, and its
        // buffer is read as soon as it is parked again.
        self.poll.registry().register(
            &mut SourceFd(&connection.stream.as_raw_fd()),
            Token(id as usize),
            Interest::READABLE,
        )?;
        server.state.counters.record_connection_accepted();
        tracing::info!(%peer, connection = id, "connection opened");
        self.park(connection);
        Ok(())
    }

    /// Whether there is room for one more connection: below the cap, or once the connection
    /// that waited longest for a request (parked, or receiving a big one) is closed.
    fn make_room(&mut self) -> bool {
        let big = lock(&self.server.shared.big);
        let closing = big.values().filter(|big| big.activity.evicted()).count();
        if self.parked.len() + self.away - closing < self.limits().connections_max {
            return true;
        }
        let waiting = self
            .parked
            .values()
            .map(|connection| (connection.id, &*connection.activity))
            .chain(big.iter().map(|(id, big)| (*id, &*big.activity)));
        let Some(id) = eviction_choice(waiting) else {
            return false;
        };
        self.server.state.counters.record_connection_evicted();
        let reason = "closed to make room at the connection cap: it waited longest for a request";
        if let Some(victim) = big.get(&id) {
            // Its thread sees the socket end and hands the connection back.
            victim.activity.evict();
            let _ = victim.stream.shutdown(std::net::Shutdown::Both);
            tracing::warn!(peer = ?victim.stream.peer_addr().ok(), connection = id, reason);
            return true;
        }
        drop(big);
        if let Some(victim) = self.parked.remove(&(id as usize)) {
            self.close(victim, Some(reason));
        }
        true
    }

    /// Waits for the connection's next bytes.
    fn park(&mut self, connection: Connection) {
        match connection.stream.set_nonblocking(true) {
            Ok(()) => {
                self.parked.insert(connection.id as usize, connection);
            }
            Err(error) => self.close(connection, Some(&error.to_string())),
        }
    }

    fn readable(&mut self, token: usize) {
        let Some(connection) = self.parked.get_mut(&token) else {
            return;
        };
        let readable = connection.read_arrived(
            &mut self.scratch,
            &self.server.limits,
            self.server.plain_refused.as_deref(),
        );
        self.act_on(token, readable);
    }

    /// Whether only TLS connections are served.
    fn tls_only(&self) -> bool {
        self.server
            .tls
            .as_ref()
            .is_some_and(|tls| !tls.settings().allow_plain)
    }

    /// Hands the connection on as `readable` says.
    fn act_on(&mut self, token: usize, readable: Readable) {
        match readable {
            Readable::Wait => {}
            Readable::Ready | Readable::Big => {
                let connection = self.unpark(token);
                self.away += 1;
                if matches!(readable, Readable::Big) {
                    spawn_big(
                        connection,
                        Arc::clone(&self.server.shared),
                        self.server.limits,
                    );
                } else {
                    lock(&self.server.shared.queue).0.push_back(connection);
                    self.server.shared.ready.notify_one();
                }
            }
            Readable::Handshake(Handshake::Tls) => {
                let connection = self.unpark(token);
                let Some(tls) = &self.server.tls else {
                    self.close(connection, Some(TLS_NOT_CONFIGURED));
                    return;
                };
                self.away += 1;
                spawn_tls(
                    connection,
                    tls,
                    Arc::clone(&self.server.shared),
                    self.server.limits,
                );
            }
            Readable::Handshake(Handshake::Sasl | Handshake::Http) => {
                let connection = self.unpark(token);
                if self.tls_only() {
                    self.close(connection, Some(PLAIN_REFUSED));
                    return;
                }
                self.away += 1;
                spawn_handoff(
                    connection,
                    Arc::clone(&self.server.shared),
                    self.server.limits,
                );
            }
            Readable::Close(reason) => {
                let connection = self.unpark(token);
                self.close(connection, reason.as_deref());
            }
        }
    }

    fn unpark(&mut self, token: usize) -> Connection {
        self.parked.remove(&token).expect("a parked connection")
    }

    /// Takes back the connections whose turn is over.
    fn take_back(&mut self) {
        let handed_back = std::mem::take(&mut *lock(&self.server.shared.handed_back));
        self.away -= self.server.shared.lost.swap(0, Ordering::AcqRel);
        for (connection, turn) in handed_back {
            self.away -= 1;
            match turn {
                Turn::Park => {
                    if self.server.shared.stopping.load(Ordering::SeqCst) {
                        self.close(connection, None);
                    } else {
                        let token = connection.id as usize;
                        self.park(connection);
                        // Bytes that arrived during the turn are read at once.
                        self.readable(token);
                    }
                }
                Turn::Close(reason) => self.close(connection, reason.as_deref()),
                Turn::Big => unreachable!("a big request is given a thread before it comes back"),
            }
        }
    }

    fn close_past_deadlines(&mut self) {
        let limits = self.server.limits;
        let passed: Vec<(usize, String)> = self
            .parked
            .iter()
            .filter_map(|(token, connection)| {
                Some((*token, connection.activity.deadline_passed(&limits)?))
            })
            .collect();
        for (token, reason) in passed {
            let connection = self.unpark(token);
            self.server.state.counters.record_connection_timed_out();
            self.close(connection, Some(&reason));
        }
        let put_off: Vec<(usize, Readable)> = self
            .parked
            .iter_mut()
            .map(|(token, connection)| (*token, connection.walk_put_off(&limits)))
            .filter(|(_, readable)| !matches!(readable, Readable::Wait))
            .collect();
        for (token, readable) in put_off {
            self.act_on(token, readable);
        }
    }

    fn close(&self, connection: Connection, reason: Option<&str>) {
        let (peer, id) = (connection.peer, connection.id);
        let _ = self
            .poll
            .registry()
            .deregister(&mut SourceFd(&connection.stream.as_raw_fd()));
        drop(connection);
        match reason {
            None => tracing::info!(%peer, connection = id, "connection closed"),
            Some(reason) => tracing::warn!(%peer, connection = id, %reason, "connection closed"),
        }
    }

    /// After a stop: closes the parked connections, and waits (boundedly) for those away.
    fn finish(&mut self) {
        let _ = self
            .poll
            .registry()
            .deregister(&mut SourceFd(&self.server.listener.as_raw_fd()));
        for (_, connection) in std::mem::take(&mut self.parked) {
            self.close(connection, None);
        }
        tracing::info!(open = self.away, "stopping: waiting for calls in flight");
        let deadline = Instant::now() + STOP_GRACE;
        while self.away > 0 && Instant::now() < deadline {
            thread::sleep(Duration::from_millis(5));
            self.take_back();
        }
        if self.away > 0 {
            tracing::warn!(
                calls = self.away,
                "calls did not finish within the grace period"
            );
        }
    }
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}
