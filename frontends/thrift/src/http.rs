//! Hive 4's HTTP transport (`metastore.server.thrift.transport.mode=http`) on the metastore
//! port: each Thrift call is a `POST /<path>` whose body holds binary protocol messages (strict
//! header), answered `200` with the replies as an `application/x-thrift` body.
//!
//! The server side of HTTP/1.1 kept to what Thrift's HTTP clients send (Java's and Python's
//! `THttpClient`): a request head, a body of `Content-Length` bytes (chunked bodies are refused
//! with 411), keep-alive, one request at a time. The head is bounded in bytes and header count
//! ([`HTTP_HEAD_BYTES_MAX`], [`HTTP_HEADERS_MAX`]), the body by the message limit, and reads by
//! the connection's idle and message deadlines. Anything not served is answered with a status
//! and a short text, and the connection closed.
//!
//! Who calls: with a [`JwtVerifier`] every request carries `Authorization: Bearer <JWT>`, its
//! subject the caller; without one, Hive takes the user from the [`USER_HEADER`] header, as a
//! `set_ugi` would name it.

use std::io::{self, Read, Write};
use std::net::SocketAddr;
use std::sync::Arc;

use crate::activity::Activity;
use crate::auth::jwt::JwtVerifier;
use crate::auth::Caller;
use crate::detect::{Protocol, Transport, WireFormat, BINARY_VERSION_HIGH, BINARY_VERSION_LOW};
use crate::dispatch::{Dispatcher, Outcome};
use crate::limits::Limits;
use crate::limits::{HTTP_HEADERS_MAX, HTTP_HEAD_BYTES_MAX};
use crate::message::{MessageReader, ReadError};
use crate::service::{ServerState, Session};

/// Hive's default `metastore.server.thrift.http.path`.
pub const HTTP_PATH_DEFAULT: &str = "metastore";
/// The header Hive takes the user from when authentication is not JWT.
pub const USER_HEADER: &str = "x-actor-username";
/// The content type of Thrift bodies, both ways.
pub const THRIFT_CONTENT_TYPE: &str = "application/x-thrift";
/// Bytes asked of the socket at a time while a head arrives.
const HEAD_READ_BYTES: usize = 8 * 1024;

/// How the HTTP transport is served.
#[derive(Debug, Clone)]
pub struct HttpSettings {
    /// The path calls are posted to, without its leading `/` (Hive's
    /// `metastore.server.thrift.http.path`).
    pub path: String,
    /// Checks bearer tokens when authentication is JWT; `None`: the user comes from
    /// [`USER_HEADER`].
    pub jwt: Option<Arc<JwtVerifier>>,
}

impl Default for HttpSettings {
    fn default() -> Self {
        HttpSettings {
            path: HTTP_PATH_DEFAULT.to_string(),
            jwt: None,
        }
    }
}

/// A request's head: its request line and headers.
#[derive(Debug, PartialEq, Eq)]
pub struct Head {
    /// `POST`, `GET`, ...
    pub method: String,
    /// The request target as sent (path and query).
    pub target: String,
    /// HTTP/1.0 (`false`) or HTTP/1.1 (`true`).
    pub http11: bool,
    /// The headers in order, names lowercased.
    pub headers: Vec<(String, String)>,
}

impl Head {
    /// The value of the header `name` (lowercase), if sent once or more: the first.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(header, _)| header == name)
            .map(|(_, value)| value.as_str())
    }

    /// Whether the client keeps the connection open after this request.
    pub fn keep_alive(&self) -> bool {
        let connection = self.header("connection").map(str::to_ascii_lowercase);
        let says = |token: &str| {
            connection
                .as_deref()
                .is_some_and(|value| value.split(',').any(|part| part.trim() == token))
        };
        if self.http11 {
            !says("close")
        } else {
            says("keep-alive")
        }
    }
}

/// A request answered with something other than 200; the connection is closed after it.
#[derive(Debug, PartialEq, Eq)]
pub struct Refusal {
    /// The status code.
    pub status: u16,
    /// What went wrong, the response's text and the log line's reason.
    pub text: String,
    /// The `WWW-Authenticate` challenge of a 401, if any.
    pub challenge: Option<String>,
}

impl Refusal {
    pub(crate) fn new(status: u16, text: impl Into<String>) -> Refusal {
        Refusal {
            status,
            text: text.into(),
            challenge: None,
        }
    }
}

fn reason_phrase(status: u16) -> &'static str {
    match status {
        200 => "OK",
        400 => "Bad Request",
        401 => "Unauthorized",
        404 => "Not Found",
        405 => "Method Not Allowed",
        411 => "Length Required",
        413 => "Content Too Large",
        431 => "Request Header Fields Too Large",
        503 => "Service Unavailable",
        505 => "HTTP Version Not Supported",
        _ => "Error",
    }
}

/// Why reading a head stopped short of one.
#[derive(Debug)]
pub(crate) enum HeadRead {
    /// The client left between two requests.
    Closed,
    /// Answer this and close.
    Refused(Refusal),
    /// The connection failed (a deadline, a reset): close without an answer.
    Failed(String),
}

/// Reads until `buffer` holds a whole head (its end, past the blank line, returned), never
/// holding more than [`HTTP_HEAD_BYTES_MAX`] bytes. `buffer` may start with bytes already read.
pub(crate) fn read_head<R: Read>(reader: &mut R, buffer: &mut Vec<u8>) -> Result<usize, HeadRead> {
    let mut searched = 0;
    loop {
        if let Some(at) = find_blank_line(&buffer[searched..]) {
            return Ok(searched + at);
        }
        searched = buffer.len().saturating_sub(3);
        if buffer.len() >= HTTP_HEAD_BYTES_MAX {
            return Err(HeadRead::Refused(Refusal::new(
                431,
                format!("the request head is over {HTTP_HEAD_BYTES_MAX} bytes"),
            )));
        }
        let start = buffer.len();
        let room = (HTTP_HEAD_BYTES_MAX - start).min(HEAD_READ_BYTES);
        buffer.resize(start + room, 0);
        let read = loop {
            match reader.read(&mut buffer[start..]) {
                Err(error) if error.kind() == io::ErrorKind::Interrupted => {}
                read => break read,
            }
        };
        match read {
            Ok(count) => buffer.truncate(start + count),
            Err(error) => {
                buffer.truncate(start);
                return Err(HeadRead::Failed(error.to_string()));
            }
        }
        if buffer.len() == start {
            return Err(if start == 0 {
                HeadRead::Closed
            } else {
                HeadRead::Failed("closed in the middle of a request head".into())
            });
        }
    }
}

/// Where the blank line ending a head ends, if `bytes` holds it.
fn find_blank_line(bytes: &[u8]) -> Option<usize> {
    bytes
        .windows(4)
        .position(|window| window == b"\r\n\r\n")
        .map(|at| at + 4)
}

/// Parses a head (the bytes up to and with its blank line).
pub fn parse_head(bytes: &[u8]) -> Result<Head, Refusal> {
    let bad = |what: &str| Refusal::new(400, format!("malformed request: {what}"));
    let text = std::str::from_utf8(bytes).map_err(|_| bad("the head is not UTF-8"))?;
    let mut lines = text
        .strip_suffix("\r\n\r\n")
        .ok_or_else(|| bad("no blank line after the head"))?
        .split("\r\n");
    let request_line = lines.next().unwrap_or_default();
    let mut parts = request_line.split(' ');
    let (Some(method), Some(target), Some(version), None) =
        (parts.next(), parts.next(), parts.next(), parts.next())
    else {
        return Err(bad("the request line is not METHOD TARGET VERSION"));
    };
    if method.is_empty() || !method.bytes().all(|byte| byte.is_ascii_uppercase()) {
        return Err(bad("the method is not a token"));
    }
    if !target.starts_with('/') {
        return Err(bad("the target is not a path"));
    }
    let http11 = match version {
        "HTTP/1.1" => true,
        "HTTP/1.0" => false,
        _ => {
            return Err(Refusal::new(
                505,
                "only HTTP/1.1 and HTTP/1.0 are served".to_string(),
            ))
        }
    };
    let mut headers = Vec::new();
    for line in lines {
        if headers.len() == HTTP_HEADERS_MAX {
            return Err(Refusal::new(
                431,
                format!("over {HTTP_HEADERS_MAX} headers (the most a request may send)"),
            ));
        }
        let (name, value) = line
            .split_once(':')
            .ok_or_else(|| bad("a header line without a colon"))?;
        let is_token =
            |byte: u8| byte.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&byte);
        if name.is_empty() || !name.bytes().all(is_token) {
            return Err(bad("a header name is not a token"));
        }
        headers.push((name.to_ascii_lowercase(), value.trim().to_string()));
    }
    Ok(Head {
        method: method.to_string(),
        target: target.to_string(),
        http11,
        headers,
    })
}

/// The body's length, from `Content-Length`; chunked bodies and bodies over the message limit
/// are refused.
pub fn body_length(head: &Head, limits: &Limits) -> Result<usize, Refusal> {
    if head.header("transfer-encoding").is_some() {
        return Err(Refusal::new(
            411,
            "a body with Transfer-Encoding: send it with Content-Length",
        ));
    }
    let mut lengths = head
        .headers
        .iter()
        .filter(|(name, _)| name == "content-length")
        .map(|(_, value)| value.as_str());
    let Some(first) = lengths.next() else {
        return Err(Refusal::new(411, "no Content-Length"));
    };
    if lengths.any(|other| other != first) {
        return Err(Refusal::new(400, "Content-Length sent twice, differing"));
    }
    if first.is_empty() || !first.bytes().all(|byte| byte.is_ascii_digit()) {
        return Err(Refusal::new(400, "Content-Length is not a number"));
    }
    let too_large = || {
        Refusal::new(
            413,
            format!(
                "the body is over {} bytes (max_message_bytes)",
                limits.message_bytes_max
            ),
        )
    };
    let length: usize = first.parse().map_err(|_| too_large())?;
    if length > limits.message_bytes_max {
        return Err(too_large());
    }
    if length == 0 {
        return Err(Refusal::new(400, "an empty body: no Thrift message"));
    }
    Ok(length)
}

/// Who calls, as the request says: the bearer token's subject under JWT, else the user header.
fn identity(head: &Head, jwt: Option<&JwtVerifier>) -> Result<Identity, Refusal> {
    let Some(verifier) = jwt else {
        return match head.header(USER_HEADER) {
            Some(user) if !user.is_empty() => Ok(Identity::Named(user.to_string())),
            _ => Err(Refusal::new(
                401,
                format!("no {USER_HEADER} header naming the user"),
            )),
        };
    };
    let unauthorized = |text: String| Refusal {
        status: 401,
        challenge: Some(format!(
            "Bearer error=\"invalid_token\", error_description=\"{}\"",
            text.replace(['"', '\\'], "'")
        )),
        text,
    };
    let token = head
        .header("authorization")
        .and_then(|value| {
            let (scheme, token) = value.split_once(' ')?;
            scheme.eq_ignore_ascii_case("bearer").then(|| token.trim())
        })
        .filter(|token| !token.is_empty());
    let Some(token) = token else {
        return Err(Refusal {
            status: 401,
            text: "no bearer token in the Authorization header".into(),
            challenge: Some("Bearer".into()),
        });
    };
    verifier
        .verify(token)
        .map(Identity::Authenticated)
        .map_err(|refusal| unauthorized(format!("bearer token refused: {refusal}")))
}

/// The caller of one request.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Identity {
    /// Proved with a bearer token.
    Authenticated(Caller),
    /// Named by the user header.
    Named(String),
}

/// The session a request is served in: kept while the caller stays the same.
struct Served {
    identity: Identity,
    dispatcher: Dispatcher,
}

/// Serves an HTTP connection to its end: request after request while the client keeps it
/// open. `reader` starts with the bytes detection read. `Err` carries why it ended, when not
/// the client's leaving.
pub(crate) fn serve<R: Read, W: Write>(
    mut reader: R,
    mut writer: W,
    peer: SocketAddr,
    state: Arc<ServerState>,
    limits: Limits,
    activity: &Activity,
) -> Result<(), String> {
    let settings = state.http().clone();
    let mut buffer = Vec::new();
    let mut served: Option<Served> = None;
    loop {
        let head_end = match read_head(&mut reader, &mut buffer) {
            Ok(end) => end,
            Err(HeadRead::Closed) => return Ok(()),
            Err(HeadRead::Failed(reason)) => return Err(reason),
            Err(HeadRead::Refused(refusal)) => return refuse(&mut writer, refusal),
        };
        let head = match parse_head(&buffer[..head_end]) {
            Ok(head) => head,
            Err(refusal) => return refuse(&mut writer, refusal),
        };
        buffer.drain(..head_end);
        let request = Request {
            head: &head,
            settings: &settings,
            limits: &limits,
        };
        let (length, identity) = match request.admit() {
            Ok(admitted) => admitted,
            Err(refusal) => return refuse(&mut writer, refusal),
        };
        if served.as_ref().map(|served| &served.identity) != Some(&identity) {
            served = Some(Served {
                dispatcher: Dispatcher::new(
                    session(&state, peer, &identity),
                    Arc::clone(&state),
                    limits,
                ),
                identity,
            });
        }
        let dispatcher = &served.as_ref().expect("set above").dispatcher;
        let in_buffer = length.min(buffer.len());
        let rest = (&mut reader).take((length - in_buffer) as u64);
        let body = MessageReader::with_prefix(rest, &buffer[..in_buffer])
            .with_budget(Arc::clone(&state.inflight));
        buffer.drain(..in_buffer);
        let reply = match answer(body, dispatcher, &limits, activity) {
            Ok(reply) => reply,
            Err(Answer::Refused(refusal)) => return refuse(&mut writer, refusal),
            Err(Answer::Failed(reason)) => return Err(reason),
        };
        let keep_alive = head.keep_alive();
        respond(
            &mut writer,
            200,
            THRIFT_CONTENT_TYPE,
            &[],
            &reply,
            keep_alive,
        )
        .map_err(|error| format!("a reply was not taken: {error}"))?;
        if !keep_alive {
            return Ok(());
        }
        activity.wait_for_message(!buffer.is_empty());
    }
}

/// One request's head, as the server's settings judge it.
struct Request<'a> {
    head: &'a Head,
    settings: &'a HttpSettings,
    limits: &'a Limits,
}

impl Request<'_> {
    /// The body's length and the caller, or why the request is not served: the method, the
    /// path, the body's framing and size, then who calls, before any of the body is read.
    fn admit(&self) -> Result<(usize, Identity), Refusal> {
        let head = self.head;
        if head.method != "POST" {
            return Err(Refusal::new(
                405,
                format!("{} is not served: Thrift calls are POSTed", head.method),
            ));
        }
        let path = head.target.split('?').next().unwrap_or_default();
        if path.strip_prefix('/') != Some(self.settings.path.as_str()) {
            return Err(Refusal::new(
                404,
                format!(
                    "no Thrift service at this path: post to /{}",
                    self.settings.path
                ),
            ));
        }
        let length = body_length(head, self.limits)?;
        let identity = identity(head, self.settings.jwt.as_deref())?;
        Ok((length, identity))
    }
}

fn session(state: &Arc<ServerState>, peer: SocketAddr, identity: &Identity) -> Session {
    let session = Session::new(Arc::clone(state), peer);
    match identity {
        Identity::Authenticated(caller) => session.authenticated(caller.clone()),
        Identity::Named(user) => {
            session.set_user(Some(user.clone()));
            session
        }
    }
}

/// Why a body was not answered.
enum Answer {
    Refused(Refusal),
    Failed(String),
}

/// Answers every message of a body, in order; the replies, back to back.
fn answer<R: Read>(
    mut body: MessageReader<R>,
    dispatcher: &Dispatcher,
    limits: &Limits,
    activity: &Activity,
) -> Result<Vec<u8>, Answer> {
    const FORMAT: WireFormat = WireFormat {
        protocol: Protocol::Binary,
        transport: Transport::Buffered,
    };
    let mut replies = Vec::new();
    let mut messages = 0;
    loop {
        let message = match body.read_message(FORMAT, limits) {
            Ok(message) => message,
            Err(ReadError::Closed) if messages > 0 => return Ok(replies),
            Err(ReadError::Closed | ReadError::Truncated) => {
                return Err(Answer::Refused(Refusal::new(
                    400,
                    "the body ends in the middle of a Thrift message",
                )))
            }
            Err(ReadError::Invalid(reason)) => {
                return Err(Answer::Refused(Refusal::new(400, reason)))
            }
            Err(error @ ReadError::OverBudget { .. }) => {
                return Err(Answer::Refused(Refusal::new(503, error.to_string())))
            }
            Err(ReadError::Io(error)) => return Err(Answer::Failed(error.to_string())),
        };
        if message.len() < 2 || message[..2] != [BINARY_VERSION_HIGH, BINARY_VERSION_LOW] {
            return Err(Answer::Refused(Refusal::new(
                400,
                "the body is not Thrift binary protocol messages with a strict header",
            )));
        }
        activity.begin_call();
        messages += 1;
        match dispatcher.dispatch(message, Protocol::Binary, &mut replies) {
            Ok(Outcome::Reply | Outcome::NoReply) => {}
            Err(error) => return Err(Answer::Refused(Refusal::new(400, error.to_string()))),
        }
    }
}

/// Answers a refused request and ends the connection; the reason goes to the log line of the
/// connection's closing.
fn refuse<W: Write>(writer: &mut W, refusal: Refusal) -> Result<(), String> {
    let challenge = refusal
        .challenge
        .as_deref()
        .map(|challenge| ("WWW-Authenticate", challenge));
    let allow = (refusal.status == 405).then_some(("Allow", "POST"));
    let extra: Vec<(&str, &str)> = challenge.into_iter().chain(allow).collect();
    let body = format!("{}\n", refusal.text);
    // The client may already be gone; the refusal is what gets logged.
    let _ = respond(
        writer,
        refusal.status,
        "text/plain; charset=utf-8",
        &extra,
        body.as_bytes(),
        false,
    );
    Err(format!("HTTP {}: {}", refusal.status, refusal.text))
}

pub(crate) fn respond<W: Write>(
    writer: &mut W,
    status: u16,
    content_type: &str,
    extra: &[(&str, &str)],
    body: &[u8],
    keep_alive: bool,
) -> io::Result<()> {
    let mut head = format!(
        "HTTP/1.1 {status} {}\r\nContent-Type: {content_type}\r\nContent-Length: {}\r\n",
        reason_phrase(status),
        body.len()
    );
    for (name, value) in extra {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    if !keep_alive {
        head.push_str("Connection: close\r\n");
    }
    head.push_str("\r\n");
    writer.write_all(head.as_bytes())?;
    writer.write_all(body)?;
    writer.flush()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn head(text: &str) -> Result<Head, Refusal> {
        parse_head(text.as_bytes())
    }

    #[test]
    fn a_thrift_clients_head_is_read_with_its_headers() {
        let parsed = head(
            "POST /metastore?x=1 HTTP/1.1\r\nHost: h:9083\r\nContent-Type: application/x-thrift\r\n\
             Content-Length: 42\r\nX-Actor-Username:  alice \r\n\r\n",
        )
        .unwrap();
        assert_eq!(parsed.method, "POST");
        assert_eq!(parsed.target, "/metastore?x=1");
        assert!(parsed.http11 && parsed.keep_alive());
        assert_eq!(parsed.header(USER_HEADER), Some("alice"));
        assert_eq!(body_length(&parsed, &Limits::default()), Ok(42));
        let old = head("POST / HTTP/1.0\r\nConnection: Keep-Alive\r\n\r\n").unwrap();
        assert!(!old.http11 && old.keep_alive());
        let closing = head("POST / HTTP/1.1\r\nConnection: close\r\n\r\n").unwrap();
        assert!(!closing.keep_alive());
    }

    #[test]
    fn malformed_heads_are_refused_with_400_or_505() {
        for bad in [
            "POST /metastore\r\n\r\n",
            "POST  /metastore HTTP/1.1\r\n\r\n",
            "post /metastore HTTP/1.1\r\n\r\n",
            "POST metastore HTTP/1.1\r\n\r\n",
            "POST / HTTP/1.1\r\nNo colon here\r\n\r\n",
            "POST / HTTP/1.1\r\nBad Name: x\r\n\r\n",
            "POST / HTTP/1.1\r\n folded: x\r\n\r\n",
        ] {
            assert_eq!(head(bad).unwrap_err().status, 400, "{bad:?}");
        }
        assert_eq!(head("POST / HTTP/2.0\r\n\r\n").unwrap_err().status, 505);
        assert_eq!(
            parse_head(b"POST /\xff HTTP/1.1\r\n\r\n")
                .unwrap_err()
                .status,
            400
        );
    }

    #[test]
    fn header_count_and_head_bytes_have_limits() {
        let many: String = (0..=HTTP_HEADERS_MAX)
            .map(|i| format!("h{i}: v\r\n"))
            .collect();
        let refused = head(&format!("POST / HTTP/1.1\r\n{many}\r\n")).unwrap_err();
        assert_eq!(refused.status, 431);
        // A head that never ends is refused once it fills the limit, not buffered further.
        let endless = format!(
            "POST / HTTP/1.1\r\nx: {}",
            "a".repeat(HTTP_HEAD_BYTES_MAX * 2)
        );
        let mut reader = endless.as_bytes();
        let mut buffer = Vec::new();
        match read_head(&mut reader, &mut buffer) {
            Err(HeadRead::Refused(refusal)) => assert_eq!(refusal.status, 431),
            other => panic!("{other:?}"),
        }
        assert_eq!(buffer.len(), HTTP_HEAD_BYTES_MAX);
    }

    #[test]
    fn a_head_arriving_in_pieces_keeps_the_bytes_after_it() {
        struct Drip<'a>(&'a [u8]);
        impl Read for Drip<'_> {
            fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
                let count = self.0.len().min(out.len()).min(3);
                out[..count].copy_from_slice(&self.0[..count]);
                self.0 = &self.0[count..];
                Ok(count)
            }
        }
        let request = b"POST /m HTTP/1.1\r\nContent-Length: 4\r\n\r\nbody";
        let mut buffer = Vec::new();
        let end = read_head(&mut Drip(request), &mut buffer).unwrap();
        assert_eq!(&buffer[..end], &request[..request.len() - 4]);
        assert!(request.ends_with(&buffer[end..]));
        let mut empty: &[u8] = b"";
        assert!(matches!(
            read_head(&mut empty, &mut Vec::new()),
            Err(HeadRead::Closed)
        ));
        let mut cut: &[u8] = b"POST /m HTT";
        assert!(matches!(
            read_head(&mut cut, &mut Vec::new()),
            Err(HeadRead::Failed(_))
        ));
    }

    #[test]
    fn bodies_need_one_content_length_within_the_message_limit() {
        let limits = Limits {
            message_bytes_max: 1000,
            ..Limits::default()
        };
        let status = |headers: &str| {
            let parsed = head(&format!("POST / HTTP/1.1\r\n{headers}\r\n")).unwrap();
            body_length(&parsed, &limits).map_err(|refusal| refusal.status)
        };
        assert_eq!(status("Content-Length: 1000\r\n"), Ok(1000));
        assert_eq!(status("Content-Length: 1001\r\n"), Err(413));
        assert_eq!(
            status("Content-Length: 99999999999999999999999\r\n"),
            Err(413)
        );
        assert_eq!(status("Transfer-Encoding: chunked\r\n"), Err(411));
        assert_eq!(status(""), Err(411));
        assert_eq!(status("Content-Length: -1\r\n"), Err(400));
        assert_eq!(status("Content-Length: 0\r\n"), Err(400));
        assert_eq!(
            status("Content-Length: 5\r\nContent-Length: 6\r\n"),
            Err(400)
        );
        assert_eq!(status("Content-Length: 5\r\nContent-Length: 5\r\n"), Ok(5));
    }

    #[test]
    fn method_path_and_the_user_header_are_checked_before_the_body() {
        let settings = HttpSettings::default();
        let limits = Limits::default();
        let admit = |text: &str| {
            let parsed = head(text).unwrap();
            Request {
                head: &parsed,
                settings: &settings,
                limits: &limits,
            }
            .admit()
            .map_err(|refusal| refusal.status)
        };
        assert_eq!(admit("GET /metastore HTTP/1.1\r\n\r\n"), Err(405));
        assert_eq!(
            admit("POST /other HTTP/1.1\r\nContent-Length: 3\r\n\r\n"),
            Err(404)
        );
        assert_eq!(
            admit("POST /metastore HTTP/1.1\r\nContent-Length: 3\r\n\r\n"),
            Err(401)
        );
        assert_eq!(
            admit("POST /metastore HTTP/1.1\r\nContent-Length: 3\r\nx-actor-username: bob\r\n\r\n"),
            Ok((3, Identity::Named("bob".into())))
        );
    }

    #[test]
    fn a_refusal_is_a_short_text_that_closes_the_connection() {
        let mut out = Vec::new();
        let refusal = Refusal {
            status: 401,
            text: "bearer token refused: expired (exp)".into(),
            challenge: Some("Bearer error=\"invalid_token\"".into()),
        };
        let ended = refuse(&mut out, refusal).unwrap_err();
        assert!(ended.contains("HTTP 401") && ended.contains("expired"));
        let text = String::from_utf8(out).unwrap();
        assert!(text.starts_with("HTTP/1.1 401 Unauthorized\r\n"), "{text}");
        assert!(text.contains("WWW-Authenticate: Bearer error=\"invalid_token\"\r\n"));
        assert!(text.contains("Connection: close\r\n"));
        assert!(text.ends_with("\r\n\r\nbearer token refused: expired (exp)\n"));
    }
}
