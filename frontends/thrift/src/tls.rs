//! TLS on the metastore port: the server's certificate and key (PEM files, reloaded on
//! demand), and one connection served over TLS on a thread of its own.
//!
//! The listener detects a TLS ClientHello among a connection's first bytes
//! ([`crate::detect::Handshake::Tls`]) and hands the connection here: its socket turns
//! blocking, the bytes the listener already read are replayed to the handshake first, and the
//! handshake must end within [`Limits::handshake_timeout`]. After it, the Thrift stream inside
//! is served as [`crate::server::serve_stream`] serves one, under the idle and message deadlines.
//!
//! With TLS on, plain connections are refused unless [`TlsSettings::allow_plain`] says
//! otherwise: Hive's `metastore.use.SSL=true` serves TLS only.

use std::cell::RefCell;
use std::io::{self, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, PoisonError, RwLock};
use std::time::{Duration, Instant};

use rustls::server::WebPkiClientVerifier;
use rustls::{RootCertStore, ServerConfig, ServerConnection, StreamOwned};
use rustls_pki_types::pem::PemObject;
use rustls_pki_types::{CertificateDer, PrivateKeyDer};

use crate::activity::TimedStream;
use crate::connection::Handoff;
use crate::limits::Limits;
use crate::socket::CountedSocket;

/// Why a connection opening with a TLS ClientHello is closed when TLS is off.
pub const TLS_NOT_CONFIGURED: &str =
    "a TLS ClientHello, but TLS is not configured on this server: start it with --tls-cert and --tls-key";
/// Why a plain connection is closed when the server serves TLS only.
pub const PLAIN_REFUSED: &str =
    "a plain (unencrypted) Thrift connection, but this server serves TLS only \
     (metastore.use.SSL=true): connect with TLS, or start the server with --tls-allow-plain";

/// Where the server's certificate and key come from, and who may connect.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TlsSettings {
    /// The server's certificate chain, PEM, the server's own certificate first.
    pub cert: PathBuf,
    /// The server's private key, PEM (PKCS#8, PKCS#1 or SEC1).
    pub key: PathBuf,
    /// CA certificates, PEM, that client certificates must chain to; `None`: clients are not
    /// asked for one.
    pub client_ca: Option<PathBuf>,
    /// Plain connections are served as well as TLS ones.
    pub allow_plain: bool,
}

/// The server's TLS configuration, replaced whole by [`Tls::reload`].
#[derive(Debug)]
pub struct Tls {
    settings: TlsSettings,
    config: RwLock<Arc<ServerConfig>>,
}

impl Tls {
    /// Reads the certificate, the key and the client CA; the error names the file and why.
    pub fn load(settings: TlsSettings) -> Result<Tls, String> {
        let config = server_config(&settings)?;
        Ok(Tls {
            settings,
            config: RwLock::new(config),
        })
    }

    /// Reads the files again: new connections use what they hold now. On an error the
    /// configuration in use is kept.
    pub fn reload(&self) -> Result<(), String> {
        let config = server_config(&self.settings)?;
        *self.config.write().unwrap_or_else(PoisonError::into_inner) = config;
        Ok(())
    }

    /// The settings the configuration was read from.
    pub fn settings(&self) -> &TlsSettings {
        &self.settings
    }

    /// The configuration new connections use.
    pub fn config(&self) -> Arc<ServerConfig> {
        Arc::clone(&self.config.read().unwrap_or_else(PoisonError::into_inner))
    }
}

fn server_config(settings: &TlsSettings) -> Result<Arc<ServerConfig>, String> {
    let chain = certificates(&settings.cert, "--tls-cert")?;
    let key = PrivateKeyDer::from_pem_file(&settings.key).map_err(|error| {
        format!(
            "--tls-key {}: no usable private key: {error}",
            settings.key.display()
        )
    })?;
    // ring, not aws-lc-rs (which needs cmake to build): its key exchanges are the classical
    // ones (X25519, P-256, P-384), without the post-quantum hybrid rustls deprecates it for.
    #[allow(deprecated)]
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let builder = ServerConfig::builder_with_provider(Arc::clone(&provider))
        .with_safe_default_protocol_versions()
        .map_err(|error| format!("TLS: {error}"))?;
    let builder = match &settings.client_ca {
        None => builder.with_no_client_auth(),
        Some(path) => {
            let mut roots = RootCertStore::empty();
            for certificate in certificates(path, "--tls-client-ca")? {
                roots
                    .add(certificate)
                    .map_err(|error| format!("--tls-client-ca {}: {error}", path.display()))?;
            }
            let verifier = WebPkiClientVerifier::builder_with_provider(Arc::new(roots), provider)
                .build()
                .map_err(|error| format!("--tls-client-ca {}: {error}", path.display()))?;
            builder.with_client_cert_verifier(verifier)
        }
    };
    let config = builder.with_single_cert(chain, key).map_err(|error| {
        format!(
            "--tls-cert {} with --tls-key {}: {error}",
            settings.cert.display(),
            settings.key.display()
        )
    })?;
    Ok(Arc::new(config))
}

/// Every certificate of a PEM file; at least one.
fn certificates(path: &Path, flag: &str) -> Result<Vec<CertificateDer<'static>>, String> {
    let why = |error: rustls_pki_types::pem::Error| format!("{flag} {}: {error}", path.display());
    let chain = CertificateDer::pem_file_iter(path)
        .map_err(why)?
        .collect::<Result<Vec<_>, _>>()
        .map_err(why)?;
    if chain.is_empty() {
        return Err(format!(
            "{flag} {}: no PEM certificate (-----BEGIN CERTIFICATE-----) in it",
            path.display()
        ));
    }
    Ok(chain)
}

/// A TLS connection's socket: the bytes the listener read first, then the socket itself, read
/// within the handshake deadline while the handshake lasts and within the connection's idle and
/// message deadlines after it.
struct Socket {
    replay: io::Cursor<Vec<u8>>,
    stream: Arc<TcpStream>,
    timed: TimedStream,
    /// While handshaking: when the handshake must be over.
    handshake_until: Option<Instant>,
    handshake_timeout: Duration,
    stopping: Arc<AtomicBool>,
}

/// Longest a handshake read blocks before it looks at the deadline and the stop flag again.
const HANDSHAKE_READ_WAIT_MAX: Duration = Duration::from_millis(250);

impl Socket {
    fn read_handshake(&mut self, until: Instant, buffer: &mut [u8]) -> io::Result<usize> {
        loop {
            let now = Instant::now();
            if now >= until {
                return Err(io::Error::new(
                    io::ErrorKind::TimedOut,
                    format!(
                        "the TLS handshake took over {} s (handshake_timeout_secs)",
                        self.handshake_timeout.as_secs_f64()
                    ),
                ));
            }
            if self.stopping.load(Ordering::Acquire) {
                return Err(io::Error::new(
                    io::ErrorKind::ConnectionAborted,
                    "the server is stopping",
                ));
            }
            self.stream
                .set_read_timeout(Some((until - now).min(HANDSHAKE_READ_WAIT_MAX)))?;
            match CountedSocket::new(&self.stream, self.timed.counters()).read(buffer) {
                Err(error)
                    if matches!(
                        error.kind(),
                        io::ErrorKind::WouldBlock
                            | io::ErrorKind::TimedOut
                            | io::ErrorKind::Interrupted
                    ) => {}
                read => return read,
            }
        }
    }
}

impl Read for Socket {
    fn read(&mut self, buffer: &mut [u8]) -> io::Result<usize> {
        if (self.replay.position() as usize) < self.replay.get_ref().len() {
            return self.replay.read(buffer);
        }
        match self.handshake_until {
            Some(until) => self.read_handshake(until, buffer),
            None => self.timed.read(buffer),
        }
    }
}

impl Write for Socket {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        CountedSocket::new(&self.stream, self.timed.counters()).write(bytes)
    }

    fn flush(&mut self) -> io::Result<()> {
        CountedSocket::new(&self.stream, self.timed.counters()).flush()
    }
}

/// One side (read or write) of a TLS stream whose other side the same thread holds.
struct Half<'a>(&'a RefCell<StreamOwned<ServerConnection, Socket>>);

impl Read for Half<'_> {
    /// A client that closes its socket without a TLS close_notify has left: Thrift messages
    /// carry their own ends, so a cut inside one is still told apart from a client leaving
    /// between two.
    fn read(&mut self, buffer: &mut [u8]) -> io::Result<usize> {
        match self.0.borrow_mut().read(buffer) {
            Err(error) if error.kind() == io::ErrorKind::UnexpectedEof => Ok(0),
            read => read,
        }
    }
}

impl Write for Half<'_> {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        self.0.borrow_mut().write(bytes)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.0.borrow_mut().flush()
    }
}

/// Serves a TLS connection to its end, on the calling thread: the handshake within its
/// deadline, then the Thrift stream inside. `Err` carries why it ended, when not the client's
/// leaving.
pub(crate) fn serve(
    connection: Handoff,
    config: Arc<ServerConfig>,
    limits: Limits,
) -> Result<(), String> {
    let stream = &connection.stream;
    stream
        .set_nonblocking(false)
        .and_then(|()| stream.set_nodelay(true))
        .and_then(|()| stream.set_write_timeout(Some(limits.handshake_timeout)))
        .map_err(|error| error.to_string())?;
    let timed = TimedStream::new(
        Arc::clone(stream),
        Arc::clone(&connection.activity),
        limits,
        Arc::clone(&connection.state),
        Arc::clone(&connection.stopping),
    );
    let mut socket = Socket {
        replay: io::Cursor::new(connection.replay),
        stream: Arc::clone(stream),
        timed,
        handshake_until: Some(Instant::now() + limits.handshake_timeout),
        handshake_timeout: limits.handshake_timeout,
        stopping: Arc::clone(&connection.stopping),
    };
    let mut tls = ServerConnection::new(config).map_err(|error| format!("TLS: {error}"))?;
    while tls.is_handshaking() {
        if let Err(error) = tls.complete_io(&mut socket) {
            if error.kind() == io::ErrorKind::TimedOut {
                connection.state.counters.record_connection_timed_out();
            }
            return Err(format!("TLS handshake failed: {error}"));
        }
    }
    tracing::debug!(
        peer = %connection.peer,
        version = ?tls.protocol_version(),
        "TLS handshake done"
    );
    socket.handshake_until = None;
    stream
        .set_write_timeout(Some(limits.message_timeout))
        .map_err(|error| error.to_string())?;
    connection.activity.wait_for_message(false);
    let tls = RefCell::new(StreamOwned::new(tls, socket));
    crate::connection::serve_detected(
        Half(&tls),
        Half(&tls),
        connection.peer,
        connection.state,
        limits,
        &connection.activity,
    )
}
