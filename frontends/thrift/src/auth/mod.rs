//! Who is calling: the identity a connection proved, and the SASL mechanisms that prove it.
//!
//! Hive names the choice `metastore.authentication` ([`Authentication`]). A connection that
//! authenticated carries a [`Caller`] in its session; a connection that did not names its user
//! with `set_ugi`, which an authenticated caller cannot change.
//!
//! A SASL mechanism's server side is a [`SaslMechanism`]: the transport (the SASL frames Hive's
//! `TSaslServerTransport` speaks) hands it the client's responses until it completes, then
//! passes every frame through its security layer (`wrap`/`unwrap`; the identity for QOP `auth`).

pub mod gssapi;
pub mod principal_rules;

use std::fmt;
use std::sync::Arc;

use plain::{PasswordCheck, PlainSettings};

pub mod jwt;
pub mod ldap;
mod ldap_ber;
pub mod passwords;
pub mod plain;
pub mod sasl;

pub use sasl::SaslServers;

pub mod delegation;
pub mod digest_layer;
pub mod digest_md5;
pub mod hadoop_token;

/// Hive's `metastore.authentication`: how clients prove who they are.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Authentication {
    /// Plain Thrift, no SASL; the client names itself with `set_ugi` (Hive's default).
    #[default]
    NoSasl,
    /// SASL PLAIN, any user and password accepted (Hive's `NONE`).
    None,
    /// SASL PLAIN, the password checked by an LDAP bind.
    Ldap,
    /// SASL GSSAPI with Kerberos, and DIGEST-MD5 with a delegation token.
    Kerberos,
    /// SASL PLAIN, the password checked against a file of hashed passwords (Hive's `CUSTOM`,
    /// whose provider class is this file here).
    Custom,
    /// HTTP transport with a JWT bearer token.
    Jwt,
}

impl Authentication {
    /// The value as Hive spells it.
    pub fn name(self) -> &'static str {
        match self {
            Authentication::NoSasl => "NOSASL",
            Authentication::None => "NONE",
            Authentication::Ldap => "LDAP",
            Authentication::Kerberos => "KERBEROS",
            Authentication::Custom => "CUSTOM",
            Authentication::Jwt => "JWT",
        }
    }

    /// Whether clients must authenticate: plain Thrift connections, which name their user with
    /// `set_ugi`, are served only under NOSASL.
    pub fn required(self) -> bool {
        self != Authentication::NoSasl
    }

    /// Reads Hive's spelling, in any case.
    pub fn parse(text: &str) -> Result<Authentication, String> {
        let all = [
            Authentication::NoSasl,
            Authentication::None,
            Authentication::Ldap,
            Authentication::Kerberos,
            Authentication::Custom,
            Authentication::Jwt,
        ];
        all.into_iter()
            .find(|mode| mode.name().eq_ignore_ascii_case(text.trim()))
            .ok_or_else(|| {
                format!(
                    "authentication {text:?} is not one of NOSASL, NONE, LDAP, KERBEROS, CUSTOM, JWT"
                )
            })
    }
}

impl fmt::Display for Authentication {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str(self.name())
    }
}

/// What the server asks of its clients: the mode, and the SASL mechanisms it offers.
#[derive(Default)]
pub struct AuthPolicy {
    /// Hive's `metastore.authentication`.
    pub authentication: Authentication,
    /// The SASL mechanisms offered; none under NOSASL.
    pub sasl: SaslServers,
    /// The password check PLAIN uses, kept for SIGHUP's reload.
    pub password_check: Option<Arc<dyn PasswordCheck>>,
}

impl fmt::Debug for AuthPolicy {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter
            .debug_struct("AuthPolicy")
            .field("authentication", &self.authentication)
            .field("sasl", &self.sasl)
            .finish_non_exhaustive()
    }
}

impl AuthPolicy {
    /// The policy of `authentication`, offering SASL PLAIN for the password modes (NONE,
    /// CUSTOM, LDAP) with the password check `plain` configures; the other mechanisms are
    /// offered by whoever has what they need ([`SaslServers::offer`]), then [`Self::check`].
    pub fn new(
        authentication: Authentication,
        plain: &PlainSettings,
    ) -> Result<AuthPolicy, String> {
        let mut sasl = SaslServers::default();
        let password_check = plain::password_check(authentication, plain)?;
        if let Some(check) = &password_check {
            let check = Arc::clone(check);
            sasl.offer("PLAIN", move |_| {
                Ok(Box::new(plain::PlainServer::new(Arc::clone(&check))))
            });
        }
        Ok(AuthPolicy {
            authentication,
            sasl,
            password_check,
        })
    }

    /// Whether the mode can be served: a SASL mode needs a mechanism offered.
    pub fn check(&self) -> Result<(), String> {
        let sasl_mode =
            self.authentication.required() && self.authentication != Authentication::Jwt;
        if sasl_mode && self.sasl.is_empty() {
            return Err(format!(
                "authentication {} offers no SASL mechanism: see docs/security.md for its settings",
                self.authentication
            ));
        }
        Ok(())
    }

    /// Reads the password file again (CUSTOM); on an error the passwords in use are kept.
    pub fn reload(&self) -> Result<(), String> {
        match &self.password_check {
            Some(check) => check.reload(),
            None => Ok(()),
        }
    }

    /// Whether the HTTP transport is served: its caller is a JWT's subject (JWT), or the user a
    /// header names (NOSASL); SASL's modes have no HTTP form.
    pub fn http_served(&self) -> bool {
        matches!(
            self.authentication,
            Authentication::NoSasl | Authentication::Jwt
        )
    }

    /// Why a plain (unauthenticated) Thrift connection is refused, if it is.
    pub fn plain_refused(&self) -> Option<String> {
        self.authentication.required().then(|| {
            let how = match self.authentication {
                Authentication::Jwt => "over HTTP with a JWT bearer token".to_string(),
                _ => format!("with SASL ({})", self.sasl.names().join(", ")),
            };
            format!(
                "a plain Thrift connection, but this server requires authentication \
                 (metastore.authentication={}): connect {how}",
                self.authentication
            )
        })
    }
}

/// How a caller proved its identity.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AuthMethod {
    /// A Kerberos ticket (SASL GSSAPI).
    Kerberos,
    /// A delegation token (SASL DIGEST-MD5).
    Token,
    /// A user name and password (SASL PLAIN).
    Password,
    /// A JWT bearer token (HTTP).
    Jwt,
}

impl AuthMethod {
    /// The name Hadoop gives the method (`UserGroupInformation.AuthenticationMethod`).
    pub fn name(self) -> &'static str {
        match self {
            AuthMethod::Kerberos => "KERBEROS",
            AuthMethod::Token => "TOKEN",
            AuthMethod::Password => "PLAIN",
            AuthMethod::Jwt => "JWT",
        }
    }
}

/// A connection's authenticated caller.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Caller {
    /// The name it authenticated as: a Kerberos principal (`alice/host@REALM`), a user name, a
    /// token's owner, a JWT's subject.
    pub principal: String,
    /// The short name that counts as the user (owners, locks, events): the principal mapped by
    /// the `auth_to_local` rules, or the principal itself.
    pub user: String,
    /// How it proved it.
    pub method: AuthMethod,
}

/// What a SASL mechanism says after a client's response.
#[derive(Debug, PartialEq, Eq)]
pub enum SaslStep {
    /// The negotiation goes on: the server's challenge, sent in an OK frame.
    Challenge(Vec<u8>),
    /// The client is authenticated; `last` is the server's final message (sent in the COMPLETE
    /// frame, empty when the mechanism has none).
    Complete {
        /// Who the client proved to be.
        caller: Caller,
        /// The COMPLETE frame's payload.
        last: Vec<u8>,
    },
}

/// The server side of one SASL mechanism for one connection.
pub trait SaslMechanism: Send {
    /// The mechanism's name as clients send it in their START frame (`GSSAPI`, `PLAIN`, ...).
    fn name(&self) -> &'static str;

    /// Takes the client's next response (its initial response first, which may be empty) and
    /// says what follows. An error ends the negotiation: the transport answers it with a BAD
    /// frame carrying the message, logs it, and closes the connection.
    fn step(&mut self, response: &[u8]) -> Result<SaslStep, String>;

    /// Protects one outgoing frame's payload with the negotiated security layer (QOP
    /// `auth-int` or `auth-conf`); the payload itself under QOP `auth`.
    fn wrap(&mut self, payload: Vec<u8>) -> Result<Vec<u8>, String> {
        Ok(payload)
    }

    /// Checks (and decrypts) one incoming frame's payload; the payload itself under QOP `auth`.
    fn unwrap(&mut self, payload: Vec<u8>) -> Result<Vec<u8>, String> {
        Ok(payload)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn authentication_reads_hive_spellings_in_any_case_and_names_the_choices_otherwise() {
        assert_eq!(
            Authentication::parse("kerberos"),
            Ok(Authentication::Kerberos)
        );
        assert_eq!(
            Authentication::parse(" NOSASL "),
            Ok(Authentication::NoSasl)
        );
        assert_eq!(
            Authentication::parse("Jwt").map(|mode| mode.name()),
            Ok("JWT")
        );
        let error = Authentication::parse("KERBEROSX").unwrap_err();
        assert!(
            error.contains("NOSASL, NONE, LDAP, KERBEROS, CUSTOM, JWT"),
            "{error}"
        );
    }
}
