//! Where a metastore listens and how to talk to it: `thrift://host:port`, binary or compact
//! protocol, buffered or framed transport.

use std::io::{BufReader, BufWriter};
use std::net::{SocketAddr, TcpStream, ToSocketAddrs};
use std::time::Duration;

use hivestore_idl::hive_metastore::ThriftHiveMetastoreSyncClient;
use thrift::protocol::{
    TBinaryInputProtocol, TBinaryOutputProtocol, TCompactInputProtocol, TCompactOutputProtocol,
    TInputProtocol, TOutputProtocol,
};
use thrift::transport::{TFramedReadTransport, TFramedWriteTransport};

use crate::error::Error;

/// The scheme every metastore URI starts with (Hive's `hive.metastore.uris`).
pub const URI_SCHEME: &str = "thrift://";
/// The port Hive's metastore listens on when a URI names none.
pub const DEFAULT_PORT: u16 = 9083;
/// How long a connection attempt may take.
pub const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);
/// How long one call may take before the connection is given up: no run can hang.
pub const CALL_TIMEOUT: Duration = Duration::from_secs(60);

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
        })
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
        let connect_error = |source| Error::Connect {
            endpoint: self.uri.clone(),
            source,
        };
        let stream =
            TcpStream::connect_timeout(&self.address()?, CONNECT_TIMEOUT).map_err(connect_error)?;
        // Calls are small request/reply pairs: Nagle would add its delay to every one.
        stream.set_nodelay(true).map_err(connect_error)?;
        stream
            .set_read_timeout(Some(CALL_TIMEOUT))
            .map_err(connect_error)?;
        stream
            .set_write_timeout(Some(CALL_TIMEOUT))
            .map_err(connect_error)?;
        let read = stream.try_clone().map_err(connect_error)?;
        let (input, output) = protocols(read, stream, self.framed, self.compact);
        Ok(ThriftHiveMetastoreSyncClient::new(input, output))
    }
}

type Protocols = (
    Box<dyn TInputProtocol + Send>,
    Box<dyn TOutputProtocol + Send>,
);

/// Socket buffers of the buffered transport: a whole reply of a few kilobytes in one read.
const SOCKET_BUFFER_BYTES: usize = 64 * 1024;

/// The client's protocols over `read` and `write` (two handles of one connection). Buffered
/// transport is std's `BufReader`/`BufWriter`: the same bytes as Thrift's buffered transport,
/// with small reads served inline from the buffer, so that the load generator spends less
/// of the machine than the server it measures.
fn protocols(read: TcpStream, write: TcpStream, framed: bool, compact: bool) -> Protocols {
    match (compact, framed) {
        (false, false) => (
            Box::new(TBinaryInputProtocol::new(
                BufReader::with_capacity(SOCKET_BUFFER_BYTES, read),
                true,
            )),
            Box::new(TBinaryOutputProtocol::new(
                BufWriter::with_capacity(SOCKET_BUFFER_BYTES, write),
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
            Box::new(TCompactInputProtocol::new(BufReader::with_capacity(
                SOCKET_BUFFER_BYTES,
                read,
            ))),
            Box::new(TCompactOutputProtocol::new(BufWriter::with_capacity(
                SOCKET_BUFFER_BYTES,
                write,
            ))),
        ),
        (true, true) => (
            Box::new(TCompactInputProtocol::new(TFramedReadTransport::new(read))),
            Box::new(TCompactOutputProtocol::new(TFramedWriteTransport::new(
                write,
            ))),
        ),
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
}
