//! Hive's `LDAP` authentication: a user's password is right when an LDAP simple bind as the
//! user's DN with it succeeds. The DN is built as Hive builds it, from
//! `hive.metastore.authentication.ldap.userDNPattern` (`uid=%s,ou=people,dc=example,dc=com`;
//! several patterns separated by `:`, tried in turn) or from its `baseDN` (`uid=USER,BASEDN`),
//! the user name escaped (RFC 4514) so that it is one attribute value whatever it holds.
//!
//! Each login opens one connection (`ldap://` plain TCP, `ldaps://` TLS with rustls), binds,
//! unbinds and closes; the whole must end within [`LDAP_TIMEOUT`], so a dead LDAP server fails
//! logins instead of stalling them. An empty password is refused before any bind: LDAP takes a
//! bind with a DN and no password as an unauthenticated bind, and lets it succeed.

use std::io::{self, Read, Write};
use std::net::{SocketAddr, TcpStream, ToSocketAddrs};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use rustls::pki_types::ServerName;
use rustls::{ClientConfig, ClientConnection, RootCertStore, StreamOwned};
use rustls_pki_types::pem::PemObject;
use rustls_pki_types::CertificateDer;

use super::ldap_ber::{bind_request, bind_response, message_length, unbind_request};
use super::plain::PasswordCheck;

/// The longest one login's LDAP exchange may take: connecting, TLS, every bind tried.
pub const LDAP_TIMEOUT: Duration = Duration::from_secs(5);

/// The LDAP server and how user names become DNs: `--ldap-url`, `--ldap-base-dn`,
/// `--ldap-user-dn-pattern`, `--ldap-ca`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LdapSettings {
    /// `ldap://host[:port]` or `ldaps://host[:port]`.
    pub url: String,
    /// Users are `uid=USER,` this, when no pattern is given.
    pub base_dn: Option<String>,
    /// DN patterns with `%s` for the user, tried in turn.
    pub user_dn_patterns: Vec<String>,
    /// CA certificates, PEM, the `ldaps://` server's certificate must chain to.
    pub ca: Option<PathBuf>,
}

impl LdapSettings {
    /// Settings from the flags' text: `patterns` separated by `:` as Hive separates them.
    /// Every error names its flag.
    pub fn new(
        url: String,
        base_dn: Option<String>,
        patterns: Option<&str>,
        ca: Option<PathBuf>,
    ) -> Result<LdapSettings, String> {
        let user_dn_patterns: Vec<String> = patterns
            .map(|text| {
                text.split(':')
                    .map(str::trim)
                    .filter(|pattern| !pattern.is_empty())
                    .map(str::to_string)
                    .collect()
            })
            .unwrap_or_default();
        if let Some(pattern) = user_dn_patterns
            .iter()
            .find(|pattern| pattern.matches("%s").count() != 1)
        {
            return Err(format!(
                "--ldap-user-dn-pattern {pattern:?} must hold %s, where the user name goes, once"
            ));
        }
        if patterns.is_some() && user_dn_patterns.is_empty() {
            return Err("--ldap-user-dn-pattern is empty".to_string());
        }
        let base_dn = base_dn.map(|dn| dn.trim().to_string());
        if base_dn.as_deref() == Some("") {
            return Err("--ldap-base-dn is empty".to_string());
        }
        if base_dn.is_none() && user_dn_patterns.is_empty() {
            return Err(
                "--ldap-url needs --ldap-base-dn or --ldap-user-dn-pattern, to build users' DNs"
                    .to_string(),
            );
        }
        let settings = LdapSettings {
            url,
            base_dn,
            user_dn_patterns,
            ca,
        };
        let url = LdapUrl::parse(&settings.url)?;
        if url.tls && settings.ca.is_none() {
            return Err(format!(
                "--ldap-url {} is ldaps://: give --ldap-ca, the CA certificates (PEM) its \
                 certificate chains to (the system's bundle, /etc/ssl/certs/ca-certificates.crt, \
                 for a public CA)",
                settings.url
            ));
        }
        if !url.tls && settings.ca.is_some() {
            return Err("--ldap-ca is for an ldaps:// --ldap-url".to_string());
        }
        Ok(settings)
    }

    /// The DNs to try a bind as for `user`, in order.
    pub fn candidate_dns(&self, user: &str) -> Vec<String> {
        let escaped = escape_dn_value(user);
        if self.user_dn_patterns.is_empty() {
            let base = self.base_dn.as_deref().unwrap_or_default();
            return vec![format!("uid={escaped},{base}")];
        }
        self.user_dn_patterns
            .iter()
            .map(|pattern| pattern.replacen("%s", &escaped, 1))
            .collect()
    }
}

/// An `ldap://` or `ldaps://` URL's server.
#[derive(Debug, PartialEq, Eq)]
struct LdapUrl {
    tls: bool,
    host: String,
    port: u16,
}

impl LdapUrl {
    fn parse(url: &str) -> Result<LdapUrl, String> {
        let bad = |why: &str| format!("--ldap-url {url:?}: {why}");
        let (tls, rest) = if let Some(rest) = url.strip_prefix("ldaps://") {
            (true, rest)
        } else if let Some(rest) = url.strip_prefix("ldap://") {
            (false, rest)
        } else {
            return Err(bad("not ldap://host[:port] or ldaps://host[:port]"));
        };
        let authority = rest.strip_suffix('/').unwrap_or(rest);
        if authority.contains(['/', '?', '@', ' ']) {
            return Err(bad(
                "only a host and a port are taken, no DN, query or user",
            ));
        }
        let (host, port) = match authority.strip_prefix('[') {
            Some(bracketed) => {
                let (host, after) = bracketed
                    .split_once(']')
                    .ok_or_else(|| bad("an IPv6 address without its ']'"))?;
                (host, after.strip_prefix(':'))
            }
            None => match authority.rsplit_once(':') {
                Some((host, port)) => (host, Some(port)),
                None => (authority, None),
            },
        };
        if host.is_empty() {
            return Err(bad("no host"));
        }
        let port = match port {
            Some(port) => port
                .parse::<u16>()
                .ok()
                .filter(|&port| port != 0)
                .ok_or_else(|| bad("the port is not a number from 1 to 65535"))?,
            None if tls => 636,
            None => 389,
        };
        Ok(LdapUrl {
            tls,
            host: host.to_string(),
            port,
        })
    }
}

/// A user name as one RFC 4514 attribute value: the characters that separate or quote in a
/// DN (`, + " \ < > ; =`), and `#` or a space at the start or a space at the end, take a `\`;
/// `*`, control characters and NUL are written as `\XX` hex.
pub fn escape_dn_value(value: &str) -> String {
    let mut out = String::with_capacity(value.len() + 8);
    let last = value.chars().count().saturating_sub(1);
    for (index, c) in value.chars().enumerate() {
        match c {
            ',' | '+' | '"' | '\\' | '<' | '>' | ';' | '=' => {
                out.push('\\');
                out.push(c);
            }
            '#' if index == 0 => out.push_str("\\#"),
            ' ' if index == 0 || index == last => out.push_str("\\ "),
            '*' => out.push_str("\\2a"),
            c if c.is_ascii_control() => out.push_str(&format!("\\{:02x}", c as u32)),
            c => out.push(c),
        }
    }
    out
}

/// Checks passwords by binding to an LDAP server.
#[derive(Debug)]
pub struct LdapBind {
    settings: LdapSettings,
    url: LdapUrl,
    tls: Option<Arc<ClientConfig>>,
}

impl LdapBind {
    /// Checks the settings and reads the CA certificates of an `ldaps://` server.
    pub fn new(settings: LdapSettings) -> Result<LdapBind, String> {
        let url = LdapUrl::parse(&settings.url)?;
        let tls = match (&settings.ca, url.tls) {
            (Some(ca), true) => Some(client_config(ca)?),
            (None, true) => return Err("an ldaps:// --ldap-url needs --ldap-ca".to_string()),
            (_, false) => None,
        };
        Ok(LdapBind { settings, url, tls })
    }

    /// Binds as each candidate DN in turn until one succeeds.
    fn bind(&self, user: &str, password: &str) -> Result<(), String> {
        let until = Instant::now() + LDAP_TIMEOUT;
        let mut connection = self.connect(until)?;
        let mut refusals = Vec::new();
        let mut message_id = 0;
        for dn in self.settings.candidate_dns(user) {
            message_id += 1;
            connection
                .write_all(&bind_request(message_id, &dn, password))
                .map_err(|error| self.io_error("sending the bind", error))?;
            let reply = read_message(&mut connection)
                .map_err(|error| self.io_error("reading the bind's reply", error))?;
            let result = bind_response(&reply, message_id)
                .map_err(|reason| format!("{}: {reason}", self.settings.url))?;
            if result.code == 0 {
                let _ = connection.write_all(&unbind_request(message_id + 1));
                return Ok(());
            }
            refusals.push(format!("bind as {dn:?}: {}", result.describe()));
        }
        let _ = connection.write_all(&unbind_request(message_id + 1));
        Err(format!(
            "{} refused {}",
            self.settings.url,
            refusals.join("; ")
        ))
    }

    fn connect(&self, until: Instant) -> Result<Box<dyn ReadWrite>, String> {
        let url = &self.settings.url;
        let addresses: Vec<SocketAddr> = (self.url.host.as_str(), self.url.port)
            .to_socket_addrs()
            .map_err(|error| format!("{url}: cannot resolve {}: {error}", self.url.host))?
            .collect();
        let mut last_error = None;
        let mut stream = None;
        for address in addresses {
            let left = until.saturating_duration_since(Instant::now());
            if left.is_zero() {
                break;
            }
            match TcpStream::connect_timeout(&address, left) {
                Ok(connected) => {
                    stream = Some(connected);
                    break;
                }
                Err(error) => last_error = Some(format!("{address}: {error}")),
            }
        }
        let Some(stream) = stream else {
            return Err(format!(
                "{url}: cannot connect within {} s: {}",
                LDAP_TIMEOUT.as_secs(),
                last_error.unwrap_or_else(|| "no address".to_string())
            ));
        };
        let _ = stream.set_nodelay(true);
        let socket = Deadline { stream, until };
        let Some(config) = &self.tls else {
            return Ok(Box::new(socket));
        };
        let name = ServerName::try_from(self.url.host.clone())
            .map_err(|error| format!("{url}: {error}"))?;
        let client = ClientConnection::new(Arc::clone(config), name)
            .map_err(|error| format!("{url}: TLS: {error}"))?;
        Ok(Box::new(StreamOwned::new(client, socket)))
    }

    fn io_error(&self, doing: &str, error: io::Error) -> String {
        if error.kind() == io::ErrorKind::TimedOut {
            return format!(
                "{}: no answer within {} s {doing}",
                self.settings.url,
                LDAP_TIMEOUT.as_secs()
            );
        }
        format!("{}: {doing}: {error}", self.settings.url)
    }
}

impl PasswordCheck for LdapBind {
    fn check(&self, user: &str, password: &str) -> Result<(), String> {
        if password.is_empty() {
            return Err(
                "an empty password (LDAP would take it as an unauthenticated bind)".to_string(),
            );
        }
        self.bind(user, password)
    }
}

fn client_config(ca: &Path) -> Result<Arc<ClientConfig>, String> {
    let why = |error: rustls_pki_types::pem::Error| format!("--ldap-ca {}: {error}", ca.display());
    let mut roots = RootCertStore::empty();
    for certificate in CertificateDer::pem_file_iter(ca).map_err(why)? {
        roots
            .add(certificate.map_err(why)?)
            .map_err(|error| format!("--ldap-ca {}: {error}", ca.display()))?;
    }
    if roots.is_empty() {
        return Err(format!(
            "--ldap-ca {}: no PEM certificate (-----BEGIN CERTIFICATE-----) in it",
            ca.display()
        ));
    }
    // ring, as tls.rs uses for the server side.
    #[allow(deprecated)]
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let config = ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|error| format!("TLS: {error}"))?
        .with_root_certificates(roots)
        .with_no_client_auth();
    Ok(Arc::new(config))
}

trait ReadWrite: Read + Write {}
impl<T: Read + Write> ReadWrite for T {}

/// A socket whose every read and write must end by `until`.
struct Deadline {
    stream: TcpStream,
    until: Instant,
}

impl Deadline {
    fn left(&self) -> io::Result<Duration> {
        let left = self.until.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(io::Error::new(
                io::ErrorKind::TimedOut,
                "LDAP deadline passed",
            ));
        }
        Ok(left)
    }
}

impl Read for Deadline {
    fn read(&mut self, buffer: &mut [u8]) -> io::Result<usize> {
        self.stream.set_read_timeout(Some(self.left()?))?;
        self.stream.read(buffer).map_err(timed_out)
    }
}

impl Write for Deadline {
    fn write(&mut self, buffer: &[u8]) -> io::Result<usize> {
        self.stream.set_write_timeout(Some(self.left()?))?;
        self.stream.write(buffer).map_err(timed_out)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.stream.flush()
    }
}

/// A socket timeout, which Unix reports as WouldBlock, as TimedOut.
fn timed_out(error: io::Error) -> io::Error {
    if error.kind() == io::ErrorKind::WouldBlock {
        return io::Error::new(io::ErrorKind::TimedOut, error);
    }
    error
}

/// Reads one whole LDAP message, its length checked before its bytes are waited for.
fn read_message(stream: &mut dyn ReadWrite) -> io::Result<Vec<u8>> {
    let mut message = Vec::with_capacity(64);
    let mut byte = [0u8; 1];
    let total = loop {
        let known = message_length(&message)
            .map_err(|reason| io::Error::new(io::ErrorKind::InvalidData, reason))?;
        if let Some(total) = known {
            break total;
        }
        stream.read_exact(&mut byte)?;
        message.push(byte[0]);
    };
    let head = message.len();
    message.resize(total, 0);
    stream.read_exact(&mut message[head..])?;
    Ok(message)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::net::TcpListener;

    fn settings(patterns: Option<&str>, base: Option<&str>) -> Result<LdapSettings, String> {
        LdapSettings::new(
            "ldap://127.0.0.1:1".to_string(),
            base.map(str::to_string),
            patterns,
            None,
        )
    }

    #[test]
    fn escaping_keeps_the_user_name_one_attribute_value() {
        assert_eq!(escape_dn_value("alice"), "alice");
        assert_eq!(
            escape_dn_value("a,ou=admins+cn=x"),
            "a\\,ou\\=admins\\+cn\\=x"
        );
        assert_eq!(escape_dn_value("*"), "\\2a");
        assert_eq!(escape_dn_value("\"q\"\\;<>"), "\\\"q\\\"\\\\\\;\\<\\>");
        assert_eq!(escape_dn_value("#a#"), "\\#a#");
        assert_eq!(escape_dn_value(" a b "), "\\ a b\\ ");
        assert_eq!(escape_dn_value("a\0b\n"), "a\\00b\\0a");
        assert_eq!(escape_dn_value("émile"), "émile");
    }

    #[test]
    fn dns_come_from_the_patterns_in_turn_or_from_the_base_dn() {
        let patterns = settings(
            Some("uid=%s,ou=people,dc=example,dc=com:cn=%s,ou=svc,dc=example,dc=com"),
            Some("dc=ignored"),
        )
        .unwrap();
        assert_eq!(
            patterns.candidate_dns("bob,ou=admins"),
            [
                "uid=bob\\,ou\\=admins,ou=people,dc=example,dc=com",
                "cn=bob\\,ou\\=admins,ou=svc,dc=example,dc=com"
            ]
        );
        let base = settings(None, Some(" dc=example,dc=com ")).unwrap();
        assert_eq!(base.candidate_dns("alice"), ["uid=alice,dc=example,dc=com"]);
    }

    #[test]
    fn settings_errors_name_their_flag() {
        let cases = [
            (settings(Some("uid=user,dc=x"), None), "must hold %s"),
            (settings(Some("uid=%s,cn=%s"), None), "must hold %s"),
            (
                settings(Some(" : "), None),
                "--ldap-user-dn-pattern is empty",
            ),
            (settings(None, Some(" ")), "--ldap-base-dn is empty"),
            (
                settings(None, None),
                "needs --ldap-base-dn or --ldap-user-dn-pattern",
            ),
            (
                LdapSettings::new("ldaps://ldap".into(), Some("dc=x".into()), None, None),
                "give --ldap-ca",
            ),
            (
                LdapSettings::new(
                    "ldap://ldap".into(),
                    Some("dc=x".into()),
                    None,
                    Some("ca.pem".into()),
                ),
                "--ldap-ca is for an ldaps://",
            ),
            (
                LdapSettings::new("http://ldap".into(), Some("dc=x".into()), None, None),
                "not ldap://host[:port]",
            ),
        ];
        for (result, expected) in cases {
            let error = result.unwrap_err();
            assert!(error.contains(expected), "{error}");
        }
    }

    #[test]
    fn urls_give_the_host_the_port_and_tls() {
        let parse = |url: &str| LdapUrl::parse(url);
        assert_eq!(
            parse("ldap://ldap.example.com"),
            Ok(LdapUrl {
                tls: false,
                host: "ldap.example.com".into(),
                port: 389
            })
        );
        assert_eq!(
            parse("ldaps://ldap.example.com/"),
            Ok(LdapUrl {
                tls: true,
                host: "ldap.example.com".into(),
                port: 636
            })
        );
        assert_eq!(
            parse("ldap://[::1]:1389"),
            Ok(LdapUrl {
                tls: false,
                host: "::1".into(),
                port: 1389
            })
        );
        assert!(parse("ldap://h:0").unwrap_err().contains("the port"));
        assert!(parse("ldap://h:x").unwrap_err().contains("the port"));
        assert!(parse("ldap://").unwrap_err().contains("no host"));
        assert!(parse("ldap://h/dc=x").unwrap_err().contains("no DN"));
    }

    #[test]
    fn an_empty_password_is_refused_before_any_connection() {
        let check = LdapBind::new(settings(None, Some("dc=x")).unwrap()).unwrap();
        let error = check.check("alice", "").unwrap_err();
        assert!(error.contains("unauthenticated bind"), "{error}");
    }

    #[test]
    fn a_server_that_never_answers_fails_the_login_within_the_deadline() {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("ldap://{}", listener.local_addr().unwrap());
        let check = LdapBind::new(LdapSettings::new(url, Some("dc=x".into()), None, None).unwrap())
            .unwrap();
        let started = Instant::now();
        let error = check.check("alice", "pw").unwrap_err();
        let took = started.elapsed();
        assert!(error.contains("no answer within 5 s"), "{error}");
        assert!(
            took >= LDAP_TIMEOUT && took < LDAP_TIMEOUT + Duration::from_secs(2),
            "{took:?}"
        );
        drop(listener);
    }

    #[test]
    fn a_refused_connection_is_a_clear_error() {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let address = listener.local_addr().unwrap();
        drop(listener);
        let check = LdapBind::new(
            LdapSettings::new(format!("ldap://{address}"), Some("dc=x".into()), None, None)
                .unwrap(),
        )
        .unwrap();
        let error = check.check("alice", "pw").unwrap_err();
        assert!(error.contains("cannot connect within 5 s"), "{error}");
    }

    /// An LDAP server on loopback that takes binds as `dn` with `password` only, on one
    /// connection, until the client unbinds; it returns the DNs it was asked to bind as.
    fn fake_ldap(
        dn: &'static str,
        password: &'static str,
    ) -> (String, std::thread::JoinHandle<Vec<String>>) {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("ldap://{}", listener.local_addr().unwrap());
        let server = std::thread::spawn(move || {
            let (mut socket, _) = listener.accept().unwrap();
            socket
                .set_read_timeout(Some(Duration::from_secs(5)))
                .unwrap();
            let mut asked = Vec::new();
            for id in 1..10u32 {
                let request = read_message(&mut socket).unwrap();
                if request == unbind_request(id) {
                    break;
                }
                let tried = [
                    "uid=alice,ou=a",
                    "uid=alice,ou=b",
                    "uid=bob,ou=a",
                    "uid=bob,ou=b",
                ]
                .into_iter()
                .find(|candidate| {
                    ["pw", "wrong"]
                        .iter()
                        .any(|pw| request == bind_request(id, candidate, pw))
                })
                .expect("a bind as a known DN");
                asked.push(tried.to_string());
                let code = if request == bind_request(id, dn, password) {
                    0
                } else {
                    49
                };
                socket
                    .write_all(&super::super::ldap_ber::bind_response_bytes(id, code, ""))
                    .unwrap();
            }
            asked
        });
        (url, server)
    }

    #[test]
    fn each_pattern_is_tried_in_turn_on_one_connection_until_a_bind_succeeds() {
        let (url, server) = fake_ldap("uid=bob,ou=b", "pw");
        let check = LdapBind::new(
            LdapSettings::new(url, None, Some("uid=%s,ou=a:uid=%s,ou=b"), None).unwrap(),
        )
        .unwrap();
        assert_eq!(check.check("bob", "pw"), Ok(()));
        assert_eq!(server.join().unwrap(), ["uid=bob,ou=a", "uid=bob,ou=b"]);

        let (url, server) = fake_ldap("uid=bob,ou=b", "pw");
        let check = LdapBind::new(
            LdapSettings::new(url.clone(), None, Some("uid=%s,ou=a:uid=%s,ou=b"), None).unwrap(),
        )
        .unwrap();
        let error = check.check("bob", "wrong").unwrap_err();
        assert_eq!(
            error,
            format!(
                "{url} refused bind as \"uid=bob,ou=a\": invalidCredentials (49); \
                 bind as \"uid=bob,ou=b\": invalidCredentials (49)"
            )
        );
        assert!(!error.contains("wrong"));
        assert_eq!(server.join().unwrap().len(), 2);
    }

    #[test]
    fn a_reply_over_the_limit_is_refused_before_its_bytes_are_read() {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("ldap://{}", listener.local_addr().unwrap());
        let server = std::thread::spawn(move || {
            let (mut socket, _) = listener.accept().unwrap();
            let mut request = [0u8; 64];
            let _ = socket.read(&mut request);
            socket.write_all(&[0x30, 0x84, 0x10, 0, 0, 0]).unwrap();
            std::thread::sleep(Duration::from_millis(200));
        });
        let check = LdapBind::new(LdapSettings::new(url, None, Some("uid=%s,dc=x"), None).unwrap())
            .unwrap();
        let error = check.check("alice", "pw").unwrap_err();
        assert!(error.contains("over the limit of 65536"), "{error}");
        server.join().unwrap();
    }
}
