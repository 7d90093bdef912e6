//! One connection to the upstream metastore: raw calls sent as the upstream reads them (the
//! binary protocol, buffered or framed) and their replies read whole, plus the two calls the
//! forwarder makes itself, `set_ugi` and `get_current_notificationEventId`.

use std::io::{BufReader, BufWriter, Read, Write};
use std::net::{TcpStream, ToSocketAddrs};
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use hivestore_idl::hive_metastore::{CurrentNotificationEventId, MetaException};
use thrift::protocol::{
    TBinaryInputProtocol, TBinaryOutputProtocol, TFieldIdentifier, TInputProtocol, TListIdentifier,
    TMessageIdentifier, TMessageType, TOutputProtocol, TSerializable, TStructIdentifier, TType,
};
use thrift::TConfiguration;

/// How long opening an upstream connection may take.
pub const UPSTREAM_CONNECT_TIMEOUT: Duration = Duration::from_secs(10);
/// How long one upstream call may take, sending and reading its reply: Hive's clients wait
/// 600 s for a reply (`metastore.client.socket.timeout`), so a client waits no longer here.
pub const UPSTREAM_CALL_TIMEOUT: Duration = Duration::from_secs(600);
/// The socket buffer of an upstream connection's reads.
const UPSTREAM_READ_BUFFER_BYTES: usize = 64 * 1024;

/// Where calls are forwarded and how to speak to it; shared by every client connection's
/// upstream connection.
#[derive(Debug)]
pub struct Upstream {
    /// The upstream as given (`thrift://host:port`), for messages.
    pub uri: String,
    /// `host:port`.
    pub authority: String,
    /// Thrift's framed transport rather than buffered.
    pub framed: bool,
    /// The longest reply read from it.
    pub reply_bytes_max: usize,
    /// Its connections open now.
    open: AtomicI64,
}

impl Upstream {
    /// The upstream at `authority`.
    pub fn new(uri: String, authority: String, framed: bool, reply_bytes_max: usize) -> Self {
        Upstream {
            uri,
            authority,
            framed,
            reply_bytes_max,
            open: AtomicI64::new(0),
        }
    }

    /// How many connections to it are open.
    pub fn open_connections(&self) -> u64 {
        u64::try_from(self.open.load(Ordering::Relaxed)).unwrap_or(0)
    }
}

/// Why an upstream call got no reply.
#[derive(Debug, thiserror::Error)]
pub enum UpstreamError {
    /// The socket failed: connecting, sending or reading.
    #[error("{0}")]
    Io(#[from] std::io::Error),
    /// The upstream's bytes are not a reply.
    #[error("an unreadable reply: {0}")]
    Reply(#[from] thrift::Error),
    /// The upstream refused a call the forwarder made itself.
    #[error("{0}")]
    Refused(String),
}

/// One open connection to the upstream.
pub struct UpstreamConnection {
    upstream: Arc<Upstream>,
    writer: TcpStream,
    reader: BufReader<TcpStream>,
    /// The user announced with `set_ugi`, if any.
    announced: Option<String>,
    /// The sequence number of the forwarder's own next call.
    sequence: i32,
}

impl Drop for UpstreamConnection {
    fn drop(&mut self) {
        self.upstream.open.fetch_sub(1, Ordering::Relaxed);
    }
}

impl UpstreamConnection {
    /// Connects to `upstream`.
    pub fn open(upstream: &Arc<Upstream>) -> Result<Self, UpstreamError> {
        let address = upstream
            .authority
            .to_socket_addrs()?
            .next()
            .ok_or_else(|| std::io::Error::other("the host resolves to no address"))?;
        let stream = TcpStream::connect_timeout(&address, UPSTREAM_CONNECT_TIMEOUT)?;
        // Calls are small request/reply pairs: Nagle would add its delay to every one.
        stream.set_nodelay(true)?;
        stream.set_read_timeout(Some(UPSTREAM_CALL_TIMEOUT))?;
        stream.set_write_timeout(Some(UPSTREAM_CALL_TIMEOUT))?;
        let reader = BufReader::with_capacity(UPSTREAM_READ_BUFFER_BYTES, stream.try_clone()?);
        upstream.open.fetch_add(1, Ordering::Relaxed);
        Ok(UpstreamConnection {
            upstream: Arc::clone(upstream),
            writer: stream,
            reader,
            announced: None,
            sequence: 0,
        })
    }

    /// Sends `message` (one whole call in the binary protocol) and returns the reply's bytes
    /// in the binary protocol; nothing for a one-way call.
    pub fn call(&mut self, message: &[u8], one_way: bool) -> Result<Vec<u8>, UpstreamError> {
        let mut writer = BufWriter::new(&self.writer);
        if self.upstream.framed {
            let length = i32::try_from(message.len())
                .map_err(|_| std::io::Error::other("a call too long for a frame"))?;
            writer.write_all(&length.to_be_bytes())?;
        }
        writer.write_all(message)?;
        writer.flush()?;
        drop(writer);
        if one_way {
            return Ok(Vec::new());
        }
        let limit = self.upstream.reply_bytes_max;
        if self.upstream.framed {
            let mut length = [0u8; 4];
            self.reader.read_exact(&mut length)?;
            let length = i32::from_be_bytes(length);
            let length = usize::try_from(length)
                .ok()
                .filter(|length| (1..=limit).contains(length))
                .ok_or_else(|| {
                    std::io::Error::other(format!(
                        "a reply frame of {length} bytes: it must be from 1 to {limit}"
                    ))
                })?;
            let mut reply = vec![0; length];
            self.reader.read_exact(&mut reply)?;
            return Ok(reply);
        }
        // An unframed reply ends where its structure does: walked as it is read, and kept.
        let mut reply = Vec::new();
        let config = TConfiguration::builder()
            .max_message_size(Some(limit))
            .max_frame_size(Some(limit))
            .max_string_size(Some(limit))
            .max_container_size(Some(limit))
            .build()?;
        {
            let recorded = Recorded {
                inner: &mut self.reader,
                bytes: &mut reply,
                limit,
            };
            let mut input = TBinaryInputProtocol::with_config(recorded, false, config);
            input.read_message_begin()?;
            input.skip(TType::Struct)?;
            input.read_message_end()?;
        }
        Ok(reply)
    }

    /// Announces `user` with `set_ugi` unless it is the user announced last; nothing for
    /// `None` (the upstream's connection then has no user named, as the client's had none).
    pub fn announce(&mut self, user: Option<&str>) -> Result<(), UpstreamError> {
        let Some(user) = user else {
            return Ok(());
        };
        if self.announced.as_deref() == Some(user) {
            return Ok(());
        }
        let call = self.encode_call("set_ugi", |output| {
            output.write_field_begin(&TFieldIdentifier::new("user_name", TType::String, 1))?;
            output.write_string(user)?;
            output.write_field_end()?;
            output.write_field_begin(&TFieldIdentifier::new("group_names", TType::List, 2))?;
            output.write_list_begin(&TListIdentifier::new(TType::String, 0))?;
            output.write_list_end()?;
            output.write_field_end()
        })?;
        let reply = self.call(&call, false)?;
        read_result(&reply, "set_ugi", |_| Ok(()))?;
        self.announced = Some(user.to_string());
        Ok(())
    }

    /// The upstream's last notification event id.
    pub fn current_event_id(&mut self) -> Result<i64, UpstreamError> {
        let call = self.encode_call("get_current_notificationEventId", |_| Ok(()))?;
        let reply = self.call(&call, false)?;
        read_result(&reply, "get_current_notificationEventId", |input| {
            CurrentNotificationEventId::read_from_in_protocol(input).map(|id| id.event_id)
        })
    }

    /// A call of `method` whose arguments `arguments` writes.
    fn encode_call(
        &mut self,
        method: &str,
        arguments: impl FnOnce(&mut dyn TOutputProtocol) -> thrift::Result<()>,
    ) -> thrift::Result<Vec<u8>> {
        self.sequence = self.sequence.wrapping_add(1);
        let mut bytes = Vec::new();
        {
            let mut output = TBinaryOutputProtocol::new(&mut bytes, true);
            output.write_message_begin(&TMessageIdentifier::new(
                method,
                TMessageType::Call,
                self.sequence,
            ))?;
            output.write_struct_begin(&TStructIdentifier::new("args"))?;
            arguments(&mut output)?;
            output.write_field_stop()?;
            output.write_struct_end()?;
            output.write_message_end()?;
            output.flush()?;
        }
        Ok(bytes)
    }
}

/// Reads the reply to the forwarder's own call of `method`: its success (field 0) by
/// `success`, or the refusal it holds.
fn read_result<T>(
    reply: &[u8],
    method: &str,
    success: impl FnOnce(&mut dyn TInputProtocol) -> thrift::Result<T>,
) -> Result<T, UpstreamError> {
    let mut input = TBinaryInputProtocol::new(reply, false);
    let header = input.read_message_begin()?;
    if header.message_type == TMessageType::Exception {
        let error = thrift::Error::read_application_error_from_in_protocol(&mut input)?;
        return Err(UpstreamError::Refused(format!(
            "{method} failed: {}",
            error.message
        )));
    }
    input.read_struct_begin()?;
    let field = input.read_field_begin()?;
    match field.id {
        Some(0) => Ok(success(&mut input)?),
        Some(_) if field.field_type == TType::Struct => {
            // Every exception these calls declare is a MetaException.
            let error = MetaException::read_from_in_protocol(&mut input)?;
            Err(UpstreamError::Refused(format!(
                "{method} failed: {}",
                error.message.unwrap_or_default()
            )))
        }
        _ => Err(UpstreamError::Refused(format!("{method} answered nothing"))),
    }
}

/// A reader that keeps what it reads, up to `limit` bytes.
struct Recorded<'a, R> {
    inner: &'a mut R,
    bytes: &'a mut Vec<u8>,
    limit: usize,
}

impl<R: Read> Read for Recorded<'_, R> {
    fn read(&mut self, buffer: &mut [u8]) -> std::io::Result<usize> {
        let room = self.limit.saturating_sub(self.bytes.len());
        if room == 0 && !buffer.is_empty() {
            return Err(std::io::Error::other(format!(
                "a reply longer than {} bytes",
                self.limit
            )));
        }
        let wanted = buffer.len().min(room);
        let read = self.inner.read(&mut buffer[..wanted])?;
        self.bytes.extend_from_slice(&buffer[..read]);
        Ok(read)
    }
}

#[cfg(test)]
pub(super) mod tests_support {
    use std::io::Read;

    /// A reader of `inner` that keeps what it reads.
    pub fn recording<'a, R: Read>(inner: &'a mut R, bytes: &'a mut Vec<u8>) -> impl Read + 'a {
        super::Recorded {
            inner,
            bytes,
            limit: usize::MAX,
        }
    }
}
