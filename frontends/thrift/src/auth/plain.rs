//! SASL PLAIN (RFC 4616), the server side: the client sends `[authzid] NUL authcid NUL passwd`
//! in one response, and a [`PasswordCheck`] says whether the password is right.
//!
//! Hive's three password modes are three checks: `NONE` takes any password ([`AnyPassword`]),
//! `CUSTOM` a file of hashed passwords ([`PasswordFile`]), `LDAP` a bind as the user
//! ([`LdapBind`]). As in Hive's metastore, an authorization identity different from the
//! authentication identity is accepted and not used: the caller is who authenticated.

use std::path::PathBuf;
use std::sync::Arc;

use super::ldap::{LdapBind, LdapSettings};
use super::passwords::PasswordFile;
use super::{AuthMethod, Authentication, Caller, SaslMechanism, SaslStep};

/// The longest PLAIN response taken, in bytes: names and a password, each far shorter.
pub const PLAIN_RESPONSE_BYTES_MAX: usize = 4096;

/// Decides whether a user's password is right.
pub trait PasswordCheck: Send + Sync {
    /// `Ok` when `password` is `user`'s; otherwise why not, for the server's log (it never
    /// contains the password).
    fn check(&self, user: &str, password: &str) -> Result<(), String>;

    /// Reads its source again (the password file), keeping what it holds on an error; nothing
    /// to do for the others.
    fn reload(&self) -> Result<(), String> {
        Ok(())
    }
}

/// Hive's `NONE`: any user, any (non-empty) password.
#[derive(Debug, Default)]
pub struct AnyPassword;

impl PasswordCheck for AnyPassword {
    fn check(&self, _user: &str, _password: &str) -> Result<(), String> {
        Ok(())
    }
}

/// Where the password modes find their passwords: the flags `--password-file`, `--ldap-url`,
/// `--ldap-base-dn`, `--ldap-user-dn-pattern` and `--ldap-ca`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PlainSettings {
    /// CUSTOM: the file of `user:hash` lines.
    pub password_file: Option<PathBuf>,
    /// LDAP: the server and how a user's DN is built.
    pub ldap: Option<LdapSettings>,
}

/// The password check of an authentication mode: `None` for the modes that do not use SASL
/// PLAIN. A mode missing its settings, or given another mode's, is an error naming the flag.
pub fn password_check(
    mode: Authentication,
    settings: &PlainSettings,
) -> Result<Option<Arc<dyn PasswordCheck>>, String> {
    if mode != Authentication::Custom && settings.password_file.is_some() {
        return Err(format!(
            "--password-file is used with authentication CUSTOM, not {mode}"
        ));
    }
    if mode != Authentication::Ldap && settings.ldap.is_some() {
        return Err(format!(
            "--ldap-url and the other --ldap-* flags are used with authentication LDAP, not {mode}"
        ));
    }
    let check: Arc<dyn PasswordCheck> = match mode {
        Authentication::None => Arc::new(AnyPassword),
        Authentication::Custom => match &settings.password_file {
            Some(path) => Arc::new(PasswordFile::load(path)?),
            None => {
                return Err(
                    "authentication CUSTOM needs --password-file, the file of user:hash lines"
                        .to_string(),
                )
            }
        },
        Authentication::Ldap => match &settings.ldap {
            Some(ldap) => Arc::new(LdapBind::new(ldap.clone())?),
            None => {
                return Err(
                    "authentication LDAP needs --ldap-url, the LDAP server to bind to".to_string(),
                )
            }
        },
        Authentication::NoSasl | Authentication::Kerberos | Authentication::Jwt => return Ok(None),
    };
    Ok(Some(check))
}

/// One connection's PLAIN negotiation.
pub struct PlainServer {
    check: Arc<dyn PasswordCheck>,
    done: bool,
}

impl PlainServer {
    /// A negotiation whose passwords `check` judges.
    pub fn new(check: Arc<dyn PasswordCheck>) -> PlainServer {
        PlainServer { check, done: false }
    }
}

impl SaslMechanism for PlainServer {
    fn name(&self) -> &'static str {
        "PLAIN"
    }

    fn step(&mut self, response: &[u8]) -> Result<SaslStep, String> {
        if self.done {
            return Err("PLAIN: a response after the negotiation completed".to_string());
        }
        self.done = true;
        let credentials = parse(response)?;
        self.check
            .check(credentials.user, credentials.password)
            .map_err(|reason| {
                format!(
                    "PLAIN: user {:?} not authenticated: {reason}",
                    credentials.user
                )
            })?;
        Ok(SaslStep::Complete {
            caller: Caller {
                principal: credentials.user.to_string(),
                user: credentials.user.to_string(),
                method: AuthMethod::Password,
            },
            last: Vec::new(),
        })
    }
}

/// What a PLAIN response holds.
#[derive(Debug, PartialEq, Eq)]
struct Credentials<'a> {
    authzid: Option<&'a str>,
    user: &'a str,
    password: &'a str,
}

/// Reads `[authzid] NUL authcid NUL passwd`; like Hive, `authcid NUL passwd` too. Errors name
/// what is wrong and never hold the password.
fn parse(response: &[u8]) -> Result<Credentials<'_>, String> {
    if response.len() > PLAIN_RESPONSE_BYTES_MAX {
        return Err(format!(
            "PLAIN: a response of {} bytes, over the limit of {PLAIN_RESPONSE_BYTES_MAX}",
            response.len()
        ));
    }
    let text = std::str::from_utf8(response)
        .map_err(|_| "PLAIN: the response is not UTF-8".to_string())?;
    let parts: Vec<&str> = text.split('\0').collect();
    let (authzid, user, password) = match parts.as_slice() {
        [authzid, user, password] => (Some(*authzid).filter(|id| !id.is_empty()), *user, *password),
        [user, password] => (None, *user, *password),
        _ => {
            return Err(format!(
            "PLAIN: the response has {} NUL-separated fields, not [authzid] NUL user NUL password",
            parts.len()
        ))
        }
    };
    if user.is_empty() {
        return Err("PLAIN: no user name".to_string());
    }
    if password.is_empty() {
        return Err(format!("PLAIN: user {user:?} sent an empty password"));
    }
    Ok(Credentials {
        authzid,
        user,
        password,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Mutex;

    /// Accepts one user's password, and records what it was asked.
    struct OnePassword {
        asked: Mutex<Vec<(String, String)>>,
    }

    impl PasswordCheck for OnePassword {
        fn check(&self, user: &str, password: &str) -> Result<(), String> {
            self.asked
                .lock()
                .unwrap()
                .push((user.to_string(), password.to_string()));
            if user == "alice" && password == "s3cret" {
                Ok(())
            } else {
                Err("wrong password".to_string())
            }
        }
    }

    fn one_password() -> Arc<OnePassword> {
        Arc::new(OnePassword {
            asked: Mutex::new(Vec::new()),
        })
    }

    #[test]
    fn parse_reads_the_three_fields_and_the_two_field_form() {
        assert_eq!(
            parse(b"admin\0alice\0pw"),
            Ok(Credentials {
                authzid: Some("admin"),
                user: "alice",
                password: "pw"
            })
        );
        assert_eq!(parse(b"\0alice\0pw").unwrap().authzid, None);
        assert_eq!(
            parse(b"alice\0pw"),
            Ok(Credentials {
                authzid: None,
                user: "alice",
                password: "pw"
            })
        );
    }

    #[test]
    fn parse_refuses_bad_responses_without_echoing_the_password() {
        let cases: [(&[u8], &str); 6] = [
            (b"", "1 NUL-separated fields"),
            (b"alice-no-nul-hunter2", "1 NUL-separated fields"),
            (b"a\0alice\0hunter2\0x", "4 NUL-separated fields"),
            (b"\0\0hunter2", "no user name"),
            (b"\0alice\0", "empty password"),
            (b"\0alice\0hunter2\xff", "not UTF-8"),
        ];
        for (response, expected) in cases {
            let error = parse(response).unwrap_err();
            assert!(error.contains(expected), "{error}");
            assert!(!error.contains("hunter2"), "{error}");
        }
        let long = vec![b'a'; PLAIN_RESPONSE_BYTES_MAX + 1];
        assert!(parse(&long).unwrap_err().contains("over the limit of 4096"));
    }

    #[test]
    fn the_right_password_completes_as_the_authentication_identity_not_the_authzid() {
        let check = one_password();
        let mut plain = PlainServer::new(check.clone());
        assert_eq!(plain.name(), "PLAIN");
        let step = plain.step(b"hive\0alice\0s3cret").unwrap();
        assert_eq!(
            step,
            SaslStep::Complete {
                caller: Caller {
                    principal: "alice".to_string(),
                    user: "alice".to_string(),
                    method: AuthMethod::Password,
                },
                last: Vec::new(),
            }
        );
        assert_eq!(
            *check.asked.lock().unwrap(),
            [("alice".to_string(), "s3cret".to_string())]
        );
        let again = plain.step(b"\0alice\0s3cret").unwrap_err();
        assert!(again.contains("after the negotiation completed"), "{again}");
    }

    #[test]
    fn a_wrong_password_fails_naming_the_user_and_the_reason_only() {
        let mut plain = PlainServer::new(one_password());
        let error = plain.step(b"\0alice\0hunter2").unwrap_err();
        assert_eq!(
            error,
            "PLAIN: user \"alice\" not authenticated: wrong password"
        );
        let check = one_password();
        let mut empty = PlainServer::new(check.clone());
        assert!(empty.step(b"\0alice\0").is_err());
        assert!(
            check.asked.lock().unwrap().is_empty(),
            "an empty password reaches no check"
        );
    }

    #[test]
    fn password_check_builds_each_mode_and_names_missing_or_misplaced_flags() {
        let none = password_check(Authentication::None, &PlainSettings::default())
            .unwrap()
            .unwrap();
        assert_eq!(none.check("anyone", "anything"), Ok(()));
        for mode in [
            Authentication::NoSasl,
            Authentication::Kerberos,
            Authentication::Jwt,
        ] {
            assert!(password_check(mode, &PlainSettings::default())
                .unwrap()
                .is_none());
        }
        let custom = password_check(Authentication::Custom, &PlainSettings::default());
        assert!(custom.err().unwrap().contains("--password-file"));
        let ldap = password_check(Authentication::Ldap, &PlainSettings::default());
        assert!(ldap.err().unwrap().contains("--ldap-url"));
        let misplaced = PlainSettings {
            password_file: Some("users.txt".into()),
            ldap: None,
        };
        let error = password_check(Authentication::None, &misplaced)
            .err()
            .unwrap();
        assert!(error.contains("--password-file is used with authentication CUSTOM, not NONE"));
    }
}
