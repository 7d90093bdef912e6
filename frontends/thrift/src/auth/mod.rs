//! Who is calling: the identity a connection proved, and the SASL mechanisms that prove it.
//!
//! Hive names the choice `metastore.authentication` ([`Authentication`]). A connection that
//! authenticated carries a [`Caller`] in its session; a connection that did not names its user
//! with `set_ugi`, which an authenticated caller cannot change.
//!
//! A SASL mechanism's server side is a [`SaslMechanism`]: the transport (the SASL frames Hive's
//! `TSaslServerTransport` speaks) hands it the client's responses until it completes, then
//! passes every frame through its security layer (`wrap`/`unwrap`; the identity for QOP `auth`).

use std::fmt;

pub mod delegation;
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
