//! Where a metastore listens and how to talk to it: `thrift://host:port`, binary or compact
//! protocol, buffered or framed transport.

use std::io::{BufReader, BufWriter, Read, Write};
use std::net::{SocketAddr, TcpStream, ToSocketAddrs};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use hivestore_idl::hive_metastore::{
    TThriftHiveMetastoreSyncClient, ThriftHiveMetastoreSyncClient,
};
use rustls::{ClientConfig, ClientConnection, RootCertStore, StreamOwned};
use rustls_pki_types::pem::PemObject;
use rustls_pki_types::{CertificateDer, ServerName};
use thrift::protocol::{
    TBinaryInputProtocol, TBinaryOutputProtocol, TCompactInputProtocol, TCompactOutputProtocol,
    TInputProtocol, TOutputProtocol,
};
use thrift::transport::TFramedWriteTransport;

use crate::error::Error;

/// The scheme every metastore URI starts with (Hive's `hive.metastore.uris`).
pub const URI_SCHEME: &str = "thrift://";
/// The port Hive's metastore listens on when a URI names none.
pub const DEFAULT_PORT: u16 = 9083;
/// How long a connection attempt may take.
pub const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);
/// How long one measured call may take before the connection is given up, by default: no run
/// can hang (`--call-timeout`).
pub const CALL_TIMEOUT: Duration = Duration::from_secs(60);
/// The same for setup and teardown, whose calls may be long on a slow server: adding 1,000
/// partitions, or dropping a database of a million.
pub const ADMIN_CALL_TIMEOUT: Duration = Duration::from_secs(1800);
/// The largest frame the framed transport reads: Thrift's own limit, a positive `i32`. (The
/// thrift crate's framed transport stops at 16 MB, less than a listing of 100k partitions.)
pub const FRAME_BYTES_MAX: usize = i32::MAX as usize;

/// A generated metastore client over boxed protocols.
pub type Client =
    ThriftHiveMetastoreSyncClient<Box<dyn TInputProtocol + Send>, Box<dyn TOutputProtocol + Send>>;

/// A metastore endpoint and the wire format to speak to it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Endpoint {
    /// The URI as given, for reports.
    pub uri: String,
    /// `host:port`.
    pub authority: String,
    /// Framed transport rather than buffered.
    pub framed: bool,
    /// Compact protocol rather than binary.
    pub compact: bool,
    /// How long a measured call may take ([`CALL_TIMEOUT`] unless set).
    pub call_timeout: Duration,
    /// TLS, trusting the CA certificates of this PEM file; `None`: plain TCP.
    pub tls_ca: Option<PathBuf>,
    /// The user every connection announces with `set_ugi` before its first call, if any.
    pub user: Option<String>,
    /// Where the bench's tables are made and dropped instead, when this endpoint only reads
    /// them (a hivestore `--reader` beside the server that writes its database).
    pub setup: Option<Box<Endpoint>>,
}

impl Endpoint {
    /// Parses `thrift://host[:port]`.
    pub fn parse(uri: &str, framed: bool, compact: bool) -> Result<Endpoint, Error> {
        let rest = uri.strip_prefix(URI_SCHEME).ok_or_else(|| {
            Error::Argument(format!(
                "metastore URI {uri:?} must start with {URI_SCHEME} (e.g. thrift://127.0.0.1:9083)"
            ))
        })?;
        let rest = rest.trim_end_matches('/');
        if rest.is_empty() || rest.contains('/') {
            return Err(Error::Argument(format!(
                "metastore URI {uri:?} must be thrift://host:port with no path"
            )));
        }
        let has_port = rest.rsplit_once(':').is_some_and(|(host, port)| {
            !host.is_empty() && !port.is_empty() && port.bytes().all(|b| b.is_ascii_digit())
        });
        let authority = if has_port {
            rest.to_string()
        } else {
            format!("{rest}:{DEFAULT_PORT}")
        };
        Ok(Endpoint {
            uri: uri.to_string(),
            authority,
            framed,
            compact,
            call_timeout: CALL_TIMEOUT,
            tls_ca: None,
            user: None,
            setup: None,
        })
    }

    /// The same endpoint over TLS, trusting the CA certificates in `ca` (PEM); reported as
    /// the URI with ` (TLS)` after it.
    pub fn with_tls(self, ca: PathBuf) -> Endpoint {
        Endpoint {
            uri: format!("{} (TLS)", self.uri),
            tls_ca: Some(ca),
            ..self
        }
    }

    /// The same endpoint, its measured calls allowed `call_timeout`.
    pub fn with_call_timeout(self, call_timeout: Duration) -> Endpoint {
        Endpoint {
            call_timeout,
            ..self
        }
    }

    /// The same endpoint, every connection announcing `user` with `set_ugi`.
    pub fn with_user(self, user: Option<String>) -> Endpoint {
        Endpoint { user, ..self }
    }

    /// The same endpoint, its tables made and dropped through `setup`.
    pub fn with_setup(self, setup: Endpoint) -> Endpoint {
        Endpoint {
            setup: Some(Box::new(setup)),
            ..self
        }
    }

    fn address(&self) -> Result<SocketAddr, Error> {
        let connect_error = |source| Error::Connect {
            endpoint: self.uri.clone(),
            source,
        };
        self.authority
            .to_socket_addrs()
            .map_err(connect_error)?
            .next()
            .ok_or_else(|| {
                connect_error(std::io::Error::new(
                    std::io::ErrorKind::NotFound,
                    "the host resolves to no address",
                ))
            })
    }

    /// Opens a new connection and wraps it in a generated client.
    pub fn connect(&self) -> Result<Client, Error> {
        self.connect_counting().map(|(client, _)| client)
    }

    /// Opens a connection for setup and teardown: calls may take [`ADMIN_CALL_TIMEOUT`].
    pub fn connect_admin(&self) -> Result<Client, Error> {
        let admin = self.setup.as_deref().unwrap_or(self);
        admin.open(ADMIN_CALL_TIMEOUT).map(|(client, _)| client)
    }

    /// Opens a new connection, and counts the bytes its replies take on the wire.
    pub fn connect_counting(&self) -> Result<(Client, ReplyBytes), Error> {
        self.open(self.call_timeout)
    }

    fn open(&self, call_timeout: Duration) -> Result<(Client, ReplyBytes), Error> {
        let (stream, read) = self.open_stream_with(call_timeout)?;
        let reply_bytes = ReplyBytes::default();
        let read = CountingRead::new(read, reply_bytes.clone(), call_timeout);
        let (input, output) = protocols(read, stream, self.framed, self.compact);
        Ok((
            ThriftHiveMetastoreSyncClient::new(input, output),
            reply_bytes,
        ))
    }

    /// A new connection for measured calls: its write and read handles.
    pub(crate) fn open_stream(&self) -> Result<(Socket, Socket), Error> {
        self.open_stream_with(self.call_timeout)
    }

    fn open_stream_with(&self, call_timeout: Duration) -> Result<(Socket, Socket), Error> {
        let (write, read) = self.connect_stream(call_timeout)?;
        if let Some(user) = &self.user {
            // A client of its own over the same handles: its reply is read whole, so nothing
            // of it is left for the connection's own reader.
            let (input, output) = protocols(
                CountingRead::new(read.try_clone()?, ReplyBytes::default(), call_timeout),
                write.try_clone()?,
                self.framed,
                self.compact,
            );
            ThriftHiveMetastoreSyncClient::new(input, output)
                .set_ugi(user.clone(), Vec::new())
                .map_err(|error| Error::Connect {
                    endpoint: self.uri.clone(),
                    source: std::io::Error::other(format!("set_ugi({user}) failed: {error}")),
                })?;
        }
        Ok((write, read))
    }

    fn connect_stream(&self, call_timeout: Duration) -> Result<(Socket, Socket), Error> {
        let connect_error = |source| Error::Connect {
            endpoint: self.uri.clone(),
            source,
        };
        let stream =
            TcpStream::connect_timeout(&self.address()?, CONNECT_TIMEOUT).map_err(connect_error)?;
        // Calls are small request/reply pairs: Nagle would add its delay to every one.
        stream.set_nodelay(true).map_err(connect_error)?;
        stream
            .set_read_timeout(Some(call_timeout))
            .map_err(connect_error)?;
        stream
            .set_write_timeout(Some(call_timeout))
            .map_err(connect_error)?;
        let Some(ca) = &self.tls_ca else {
            let read = stream.try_clone().map_err(connect_error)?;
            return Ok((Socket::Plain(stream), Socket::Plain(read)));
        };
        let host = self
            .authority
            .rsplit_once(':')
            .map_or(self.authority.as_str(), |(host, _)| host)
            .trim_start_matches('[')
            .trim_end_matches(']');
        let name = ServerName::try_from(host.to_string()).map_err(|error| {
            connect_error(std::io::Error::new(
                std::io::ErrorKind::InvalidInput,
                format!("{host} is not a TLS server name: {error}"),
            ))
        })?;
        let connection = ClientConnection::new(client_config(ca)?, name)
            .map_err(|error| connect_error(std::io::Error::other(format!("TLS: {error}"))))?;
        let mut tls = StreamOwned::new(connection, stream);
        while tls.conn.is_handshaking() {
            tls.conn
                .complete_io(&mut tls.sock)
                .map_err(|error| Error::Connect {
                    endpoint: self.uri.clone(),
                    source: std::io::Error::new(
                        error.kind(),
                        format!("TLS handshake failed: {error}"),
                    ),
                })?;
        }
        let shared = Arc::new(Mutex::new(tls));
        Ok((Socket::Tls(Arc::clone(&shared)), Socket::Tls(shared)))
    }
}

/// The TLS client configuration trusting the CA certificates of `ca` (PEM).
fn client_config(ca: &Path) -> Result<Arc<ClientConfig>, Error> {
    let why = |error: String| Error::Argument(format!("--tls-ca {}: {error}", ca.display()));
    let mut roots = RootCertStore::empty();
    let certificates = CertificateDer::pem_file_iter(ca)
        .map_err(|error| why(error.to_string()))?
        .collect::<Result<Vec<_>, _>>()
        .map_err(|error| why(error.to_string()))?;
    if certificates.is_empty() {
        return Err(why("no PEM certificate in it".into()));
    }
    for certificate in certificates {
        roots
            .add(certificate)
            .map_err(|error| why(error.to_string()))?;
    }
    // ring, as the server: aws-lc-rs needs cmake to build.
    #[allow(deprecated)]
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let config = ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|error| why(error.to_string()))?
        .with_root_certificates(roots)
        .with_no_client_auth();
    Ok(Arc::new(config))
}

/// One handle of a connection: plain TCP (each handle a socket of its own), or TLS (both
/// handles of one TLS stream; a connection's calls come one at a time, so its lock is never
/// waited for).
pub enum Socket {
    /// Plain TCP.
    Plain(TcpStream),
    /// TLS over TCP.
    Tls(Arc<Mutex<StreamOwned<ClientConnection, TcpStream>>>),
}

fn tls_lock(
    tls: &Mutex<StreamOwned<ClientConnection, TcpStream>>,
) -> std::sync::MutexGuard<'_, StreamOwned<ClientConnection, TcpStream>> {
    tls.lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

impl Socket {
    /// Another handle of the same connection.
    fn try_clone(&self) -> Result<Socket, Error> {
        match self {
            Socket::Plain(stream) => {
                stream
                    .try_clone()
                    .map(Socket::Plain)
                    .map_err(|source| Error::Connect {
                        endpoint: "a connection's second handle".into(),
                        source,
                    })
            }
            Socket::Tls(tls) => Ok(Socket::Tls(Arc::clone(tls))),
        }
    }
}

impl Read for Socket {
    fn read(&mut self, buffer: &mut [u8]) -> std::io::Result<usize> {
        match self {
            Socket::Plain(stream) => stream.read(buffer),
            Socket::Tls(tls) => tls_lock(tls).read(buffer),
        }
    }
}

impl Write for Socket {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        match self {
            Socket::Plain(stream) => stream.write(bytes),
            Socket::Tls(tls) => tls_lock(tls).write(bytes),
        }
    }

    fn flush(&mut self) -> std::io::Result<()> {
        match self {
            Socket::Plain(stream) => stream.flush(),
            Socket::Tls(tls) => tls_lock(tls).flush(),
        }
    }
}

/// The bytes a connection has read from its socket: every reply as the server sent it,
/// framing included. Counted under the read buffer, so it is what crossed the socket.
#[derive(Debug, Clone, Default)]
pub struct ReplyBytes(Arc<AtomicU64>);

impl ReplyBytes {
    /// Bytes read so far.
    pub fn total(&self) -> u64 {
        self.0.load(Ordering::Relaxed)
    }
}

/// A reader that adds what it reads to a [`ReplyBytes`], and says so when a reply took longer
/// than the socket's read timeout (the OS says only "resource temporarily unavailable").
pub(crate) struct CountingRead<R> {
    inner: R,
    count: ReplyBytes,
    timeout: Duration,
}

impl<R> CountingRead<R> {
    /// Counts what `inner` reads into `count`; `timeout` is the socket's, for its error.
    pub(crate) fn new(inner: R, count: ReplyBytes, timeout: Duration) -> Self {
        CountingRead {
            inner,
            count,
            timeout,
        }
    }
}

impl<R: Read> Read for CountingRead<R> {
    fn read(&mut self, buffer: &mut [u8]) -> std::io::Result<usize> {
        let read = self.inner.read(buffer).map_err(|error| {
            if matches!(
                error.kind(),
                std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
            ) {
                std::io::Error::new(
                    std::io::ErrorKind::TimedOut,
                    format!(
                        "no reply within {} s, the bench's call timeout (--call-timeout)",
                        self.timeout.as_secs_f64()
                    ),
                )
            } else {
                error
            }
        })?;
        self.count.0.fetch_add(read as u64, Ordering::Relaxed);
        Ok(read)
    }
}

/// Thrift's framed transport, read side: a big-endian `i32` length before each message. Over
/// a buffered reader, so that a frame's bytes are read from the socket as the buffered
/// transport reads them; frames up to [`FRAME_BYTES_MAX`].
struct FramedRead<R> {
    inner: R,
    frame_bytes_left: usize,
}

impl<R: Read> Read for FramedRead<R> {
    fn read(&mut self, buffer: &mut [u8]) -> std::io::Result<usize> {
        if buffer.is_empty() {
            return Ok(0);
        }
        if self.frame_bytes_left == 0 {
            let mut length = [0u8; 4];
            self.inner.read_exact(&mut length)?;
            let length = i32::from_be_bytes(length);
            self.frame_bytes_left = usize::try_from(length)
                .ok()
                .filter(|length| (1..=FRAME_BYTES_MAX).contains(length))
                .ok_or_else(|| {
                    std::io::Error::new(
                        std::io::ErrorKind::InvalidData,
                        format!(
                            "a frame of {length} bytes: it must be from 1 to {FRAME_BYTES_MAX}"
                        ),
                    )
                })?;
        }
        let wanted = buffer.len().min(self.frame_bytes_left);
        let read = self.inner.read(&mut buffer[..wanted])?;
        if read == 0 {
            return Err(std::io::ErrorKind::UnexpectedEof.into());
        }
        self.frame_bytes_left -= read;
        Ok(read)
    }
}

type Protocols = (
    Box<dyn TInputProtocol + Send>,
    Box<dyn TOutputProtocol + Send>,
);

/// Socket buffers of the buffered transport: a whole reply of a few kilobytes in one read.
pub const SOCKET_BUFFER_BYTES: usize = 64 * 1024;

type SocketRead = CountingRead<Socket>;

/// The client's protocols over `read` and `write` (two handles of one connection). Buffered
/// transport is std's `BufReader`/`BufWriter`: the same bytes as Thrift's buffered transport,
/// with small reads served inline from the buffer, so that the load generator spends less
/// of the machine than the server it measures. Framed transport reads through the same
/// buffer, and either counts its socket reads under it.
fn protocols(read: SocketRead, write: Socket, framed: bool, compact: bool) -> Protocols {
    let buffered = BufReader::with_capacity(SOCKET_BUFFER_BYTES, read);
    let input = input_protocol(buffered, framed, compact);
    let output: Box<dyn TOutputProtocol + Send> = match (compact, framed) {
        (false, false) => Box::new(TBinaryOutputProtocol::new(
            BufWriter::with_capacity(SOCKET_BUFFER_BYTES, write),
            true,
        )),
        (false, true) => Box::new(TBinaryOutputProtocol::new(
            TFramedWriteTransport::new(write),
            true,
        )),
        (true, false) => Box::new(TCompactOutputProtocol::new(BufWriter::with_capacity(
            SOCKET_BUFFER_BYTES,
            write,
        ))),
        (true, true) => Box::new(TCompactOutputProtocol::new(TFramedWriteTransport::new(
            write,
        ))),
    };
    (input, output)
}

/// The client's input protocol over `buffered`, a connection's buffered read side.
pub(crate) fn input_protocol<R: Read + Send + 'static>(
    buffered: R,
    framed: bool,
    compact: bool,
) -> Box<dyn TInputProtocol + Send> {
    match (compact, framed) {
        (false, false) => Box::new(TBinaryInputProtocol::new(buffered, true)),
        (false, true) => Box::new(TBinaryInputProtocol::new(framed_read(buffered), true)),
        (true, false) => Box::new(TCompactInputProtocol::new(buffered)),
        (true, true) => Box::new(TCompactInputProtocol::new(framed_read(buffered))),
    }
}

fn framed_read<R: Read>(inner: R) -> FramedRead<R> {
    FramedRead {
        inner,
        frame_bytes_left: 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uris_name_host_and_port_with_hives_default_port() {
        let endpoint = Endpoint::parse("thrift://127.0.0.1:19083", false, false).unwrap();
        assert_eq!(endpoint.authority, "127.0.0.1:19083");
        let endpoint = Endpoint::parse("thrift://metastore/", true, true).unwrap();
        assert_eq!(endpoint.authority, "metastore:9083");
        assert!(Endpoint::parse("127.0.0.1:9083", false, false).is_err());
        assert!(Endpoint::parse("thrift://", false, false).is_err());
        assert!(Endpoint::parse("thrift://host:9083/db", false, false).is_err());
    }

    #[test]
    fn framed_reads_serve_frames_back_to_back_and_refuse_bad_lengths() {
        let wire = [&3i32.to_be_bytes()[..], b"abc", &2i32.to_be_bytes(), b"de"].concat();
        let mut read = Vec::new();
        framed_read(&wire[..]).read_to_end(&mut read).unwrap_err();
        assert_eq!(read, b"abcde", "both frames, then the end of the input");
        let negative = (-1i32).to_be_bytes();
        let error = framed_read(&negative[..]).read(&mut [0; 8]).unwrap_err();
        assert!(error.to_string().contains("-1 bytes"), "{error}");
    }

    /// A server that accepts and never answers costs a measured call its timeout, and the
    /// error says that it was the bench's timeout.
    #[test]
    fn a_call_without_reply_fails_naming_the_call_timeout() {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let uri = format!("thrift://{}", listener.local_addr().unwrap());
        let endpoint = Endpoint::parse(&uri, false, false)
            .unwrap()
            .with_call_timeout(Duration::from_millis(200));
        let (mut client, _) = endpoint.connect_counting().unwrap();
        let _silent = listener.accept().unwrap();
        let error = client.get_all_databases().unwrap_err();
        let described = crate::error::describe(&error);
        assert!(
            described.contains("no reply within 0.2 s, the bench's call timeout"),
            "{described}"
        );
    }

    #[test]
    fn counted_reads_add_up() {
        let count = ReplyBytes::default();
        let mut read = CountingRead {
            inner: &b"0123456789"[..],
            count: count.clone(),
            timeout: CALL_TIMEOUT,
        };
        std::io::copy(&mut read, &mut std::io::sink()).unwrap();
        assert_eq!(count.total(), 10);
    }
}
