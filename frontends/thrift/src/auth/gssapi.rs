//! SASL GSSAPI (RFC 4752), the server side: Kerberos authentication and its security layer.
//!
//! The client's tokens go to `gss_accept_sec_context` until the context is established. Then the
//! server offers its security layers (the configured QOPs) and its largest buffer in a wrapped
//! 4-byte message; the client answers, wrapped, with the layer it chose, its largest buffer and
//! an authorization id. As Hadoop's GSSAPI callback does for Hive, an authorization id other than
//! the authenticated principal is refused. With `auth-int` or `auth-conf` every later frame goes
//! through `gss_wrap`/`gss_unwrap` (encrypted under `auth-conf`).

use std::path::{Path, PathBuf};
use std::sync::Arc;

use hivestore_gssapi::{Context, Credential, Gss};

use super::principal_rules::PrincipalRules;
use super::{AuthMethod, Caller, SaslMechanism, SaslStep};

/// The largest wrapped message a SASL security layer can announce (3 bytes).
pub const LAYER_BUFFER_BYTES_MAX: u32 = 0x00ff_ffff;
/// Longest authorization id a client may send, in bytes.
const AUTHZID_BYTES_MAX: usize = 1024;

/// A SASL quality of protection (Hadoop's `hadoop.rpc.protection`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Qop {
    /// Authentication only (`authentication`).
    Auth,
    /// Integrity checks on every frame (`integrity`).
    AuthInt,
    /// Integrity and encryption (`privacy`).
    AuthConf,
}

impl Qop {
    /// The layer's bit in the security-layer messages.
    pub fn bit(self) -> u8 {
        match self {
            Qop::Auth => 1,
            Qop::AuthInt => 2,
            Qop::AuthConf => 4,
        }
    }

    /// SASL's name of the QOP.
    pub fn name(self) -> &'static str {
        match self {
            Qop::Auth => "auth",
            Qop::AuthInt => "auth-int",
            Qop::AuthConf => "auth-conf",
        }
    }

    /// Reads a comma list of SASL names (`auth-conf,auth`) or Hadoop's names
    /// (`privacy,authentication`); the order is kept, duplicates dropped.
    pub fn parse_list(text: &str) -> Result<Vec<Qop>, String> {
        let mut list = Vec::new();
        for item in text.split(',').map(str::trim) {
            let qop = match item.to_ascii_lowercase().as_str() {
                "auth" | "authentication" => Qop::Auth,
                "auth-int" | "integrity" => Qop::AuthInt,
                "auth-conf" | "privacy" => Qop::AuthConf,
                _ => {
                    return Err(format!(
                        "sasl_qop {item:?} is not auth, auth-int or auth-conf (or Hadoop's \
                         authentication, integrity, privacy)"
                    ))
                }
            };
            if !list.contains(&qop) {
                list.push(qop);
            }
        }
        Ok(list)
    }
}

/// The Kerberos settings of `hivestore serve`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KerberosSettings {
    /// The service principal, `_HOST` not yet replaced (`hive/_HOST@REALM`).
    pub principal: String,
    /// The host name for `_HOST`; the canonical host name when not given.
    pub host: Option<String>,
    /// The keytab holding the principal's key.
    pub keytab: PathBuf,
    /// The security layers offered.
    pub qop: Vec<Qop>,
    /// The `auth_to_local` rules.
    pub auth_to_local: String,
}

/// Kerberos, ready to accept: the service credential, the rules and the layers, shared by all
/// connections.
pub struct Kerberos {
    gss: Gss,
    credential: Arc<Credential>,
    principal: String,
    rules: PrincipalRules,
    layers: u8,
}

impl Kerberos {
    /// Loads GSS-API, checks the keytab and that it holds the principal's key, and parses the
    /// rules: every failure is a message saying what to fix.
    pub fn start(settings: &KerberosSettings) -> Result<Kerberos, String> {
        let host = match &settings.host {
            Some(host) => host.clone(),
            None if settings.principal.contains("_HOST") => {
                hivestore_gssapi::canonical_host_name()?
            }
            None => String::new(),
        };
        let principal = settings.principal.replace("_HOST", &host);
        let realm = principal_realm(&principal)?;
        std::fs::File::open(&settings.keytab).map_err(|error| {
            format!(
                "kerberos_keytab {} cannot be read: {error}",
                settings.keytab.display()
            )
        })?;
        let gss = Gss::load().map_err(|error| error.to_string())?;
        gss.register_keytab(&settings.keytab)
            .map_err(|error| error.to_string())?;
        let credential = gss.acceptor_credential(&principal).map_err(|error| {
            format!(
                "kerberos_principal {principal} has no usable key in kerberos_keytab {}: {error}",
                settings.keytab.display()
            )
        })?;
        let default_realm = default_realm(std::env::var_os("KRB5_CONFIG").as_deref())
            .unwrap_or_else(|| realm.to_string());
        let rules = PrincipalRules::parse(&settings.auth_to_local, &default_realm)?;
        if settings.qop.is_empty() {
            return Err("sasl_qop names no protection".to_string());
        }
        Ok(Kerberos {
            gss,
            credential: Arc::new(credential),
            principal,
            rules,
            layers: settings.qop.iter().fold(0, |bits, qop| bits | qop.bit()),
        })
    }

    /// The service principal served, `_HOST` replaced.
    pub fn principal(&self) -> &str {
        &self.principal
    }

    /// A mechanism for one connection.
    pub fn mechanism(&self) -> GssapiMechanism {
        GssapiMechanism {
            context: self.gss.acceptor(&self.credential),
            rules: self.rules.clone(),
            layers: self.layers,
            state: State::Accepting,
            layer: Qop::Auth,
        }
    }
}

fn principal_realm(principal: &str) -> Result<&str, String> {
    match principal.rsplit_once('@') {
        Some((name, realm)) if !name.is_empty() && !realm.is_empty() => Ok(realm),
        _ => Err(format!(
            "kerberos_principal {principal:?} must be a full principal, service/host@REALM"
        )),
    }
}

/// `default_realm` of `[libdefaults]` in the first file of `KRB5_CONFIG` (else /etc/krb5.conf).
fn default_realm(krb5_config: Option<&std::ffi::OsStr>) -> Option<String> {
    let paths = krb5_config
        .map(|paths| std::env::split_paths(paths).collect::<Vec<_>>())
        .unwrap_or_else(|| vec![PathBuf::from("/etc/krb5.conf")]);
    paths.iter().find_map(|path| read_default_realm(path))
}

fn read_default_realm(path: &Path) -> Option<String> {
    let text = std::fs::read_to_string(path).ok()?;
    let mut in_libdefaults = false;
    for line in text.lines().map(str::trim) {
        if line.starts_with('[') {
            in_libdefaults = line == "[libdefaults]";
        } else if in_libdefaults {
            if let Some((key, value)) = line.split_once('=') {
                if key.trim() == "default_realm" {
                    return Some(value.trim().to_string());
                }
            }
        }
    }
    None
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    /// Tokens go to accept_sec_context.
    Accepting,
    /// The context is established and its last token sent; the client's (empty) answer comes.
    Established,
    /// The layers were offered; the client's choice comes.
    Offered,
    /// Authenticated.
    Done,
    /// A step failed; nothing more is accepted.
    Failed,
}

/// The GSSAPI mechanism of one connection.
pub struct GssapiMechanism {
    context: Context,
    rules: PrincipalRules,
    layers: u8,
    state: State,
    layer: Qop,
}

impl GssapiMechanism {
    fn offer(&mut self) -> Result<SaslStep, String> {
        let offer = layer_message(self.layers, LAYER_BUFFER_BYTES_MAX, b"");
        let wrapped = self
            .context
            .wrap(&offer, false)
            .map_err(|error| error.to_string())?;
        self.state = State::Offered;
        Ok(SaslStep::Challenge(wrapped))
    }

    fn choose(&mut self, response: &[u8]) -> Result<SaslStep, String> {
        let (message, _) = self
            .context
            .unwrap(response)
            .map_err(|error| error.to_string())?;
        let choice = parse_layer_message(&message)?;
        self.layer = [Qop::Auth, Qop::AuthInt, Qop::AuthConf]
            .into_iter()
            .find(|qop| qop.bit() == choice.layers && self.layers & qop.bit() != 0)
            .ok_or_else(|| {
                format!(
                    "the client chose security layers {:#04x}, not one of those offered ({:#04x})",
                    choice.layers, self.layers
                )
            })?;
        let principal = self
            .context
            .peer()
            .ok_or("the established context names no client")?
            .to_string();
        if !choice.authzid.is_empty() && choice.authzid != principal {
            return Err(format!(
                "{principal} is not authorized to act as {:?} (the authorization id must be the \
                 authenticated principal)",
                choice.authzid
            ));
        }
        let user = self.rules.short_name(&principal)?;
        self.state = State::Done;
        Ok(SaslStep::Complete {
            caller: Caller {
                principal,
                user,
                method: AuthMethod::Kerberos,
            },
            last: Vec::new(),
        })
    }

    fn advance(&mut self, response: &[u8]) -> Result<SaslStep, String> {
        match self.state {
            State::Accepting => {
                let step = self
                    .context
                    .step(response)
                    .map_err(|error| error.to_string())?;
                if !step.complete {
                    return Ok(SaslStep::Challenge(step.token));
                }
                if step.token.is_empty() {
                    self.offer()
                } else {
                    self.state = State::Established;
                    Ok(SaslStep::Challenge(step.token))
                }
            }
            // The client's answer to the context's last token carries nothing (RFC 4752 3.1).
            State::Established => self.offer(),
            State::Offered => self.choose(response),
            State::Done | State::Failed => {
                Err("the GSSAPI negotiation is over; no more responses are taken".to_string())
            }
        }
    }
}

impl SaslMechanism for GssapiMechanism {
    fn name(&self) -> &'static str {
        "GSSAPI"
    }

    fn step(&mut self, response: &[u8]) -> Result<SaslStep, String> {
        let step = self.advance(response);
        if step.is_err() {
            self.state = State::Failed;
        }
        step
    }

    fn wrap(&mut self, payload: Vec<u8>) -> Result<Vec<u8>, String> {
        match self.layer {
            Qop::Auth => Ok(payload),
            layer => self
                .context
                .wrap(&payload, layer == Qop::AuthConf)
                .map_err(|error| error.to_string()),
        }
    }

    fn unwrap(&mut self, payload: Vec<u8>) -> Result<Vec<u8>, String> {
        match self.layer {
            Qop::Auth => Ok(payload),
            layer => {
                let (message, encrypted) = self
                    .context
                    .unwrap(&payload)
                    .map_err(|error| error.to_string())?;
                if layer == Qop::AuthConf && !encrypted {
                    return Err("a frame came unencrypted under QOP auth-conf".to_string());
                }
                Ok(message)
            }
        }
    }
}

/// The security-layer message before wrapping: the layer bits, the largest buffer (3 bytes,
/// network order), then the authorization id (from the client only).
pub fn layer_message(layers: u8, buffer_bytes_max: u32, authzid: &[u8]) -> Vec<u8> {
    let size = buffer_bytes_max.min(LAYER_BUFFER_BYTES_MAX).to_be_bytes();
    let mut message = vec![layers, size[1], size[2], size[3]];
    message.extend_from_slice(authzid);
    message
}

/// A client's security-layer answer.
#[derive(Debug, PartialEq, Eq)]
pub struct LayerChoice {
    /// The bits the client set: exactly one layer is valid.
    pub layers: u8,
    /// The client's largest buffer.
    pub buffer_bytes_max: u32,
    /// The identity the client asks to act as (empty: the principal itself).
    pub authzid: String,
}

/// Reads a client's unwrapped security-layer answer.
pub fn parse_layer_message(message: &[u8]) -> Result<LayerChoice, String> {
    if message.len() < 4 {
        return Err(format!(
            "the client's security-layer message has {} bytes, fewer than 4",
            message.len()
        ));
    }
    let authzid = &message[4..];
    if authzid.len() > AUTHZID_BYTES_MAX {
        return Err(format!(
            "the authorization id is longer than {AUTHZID_BYTES_MAX} bytes"
        ));
    }
    Ok(LayerChoice {
        layers: message[0],
        buffer_bytes_max: u32::from_be_bytes([0, message[1], message[2], message[3]]),
        authzid: String::from_utf8(authzid.to_vec())
            .map_err(|_| "the authorization id is not UTF-8".to_string())?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn qop_lists_read_sasl_and_hadoop_names_and_refuse_others() {
        assert_eq!(Qop::parse_list("auth"), Ok(vec![Qop::Auth]));
        assert_eq!(
            Qop::parse_list("privacy, integrity,auth-conf"),
            Ok(vec![Qop::AuthConf, Qop::AuthInt])
        );
        let error = Qop::parse_list("auth,secret").unwrap_err();
        assert!(
            error.contains("\"secret\" is not auth, auth-int or auth-conf"),
            "{error}"
        );
    }

    #[test]
    fn layer_messages_carry_bits_size_and_authzid() {
        let offer = layer_message(Qop::Auth.bit() | Qop::AuthConf.bit(), 65536, b"");
        assert_eq!(offer, [5, 0x01, 0x00, 0x00]);
        assert_eq!(layer_message(1, u32::MAX, b""), [1, 0xff, 0xff, 0xff]);
        let choice = parse_layer_message(&layer_message(4, 4096, b"alice@R")).unwrap();
        assert_eq!(
            choice,
            LayerChoice {
                layers: 4,
                buffer_bytes_max: 4096,
                authzid: "alice@R".to_string()
            }
        );
        assert!(parse_layer_message(&[1, 0, 0])
            .unwrap_err()
            .contains("fewer than 4"));
        assert!(parse_layer_message(&[1, 0, 0, 0, 0xff])
            .unwrap_err()
            .contains("UTF-8"));
        let long = layer_message(1, 0, &[b'a'; AUTHZID_BYTES_MAX + 1]);
        assert!(parse_layer_message(&long)
            .unwrap_err()
            .contains("longer than"));
    }

    #[test]
    fn default_realm_comes_from_libdefaults_of_krb5_conf() {
        let dir = std::env::temp_dir().join(format!("hivestore-krb5conf-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("krb5.conf");
        std::fs::write(
            &path,
            "[realms]\n default_realm = WRONG\n[libdefaults]\n  dns_lookup_kdc = false\n  \
             default_realm = HIVESTORE.TEST\n",
        )
        .unwrap();
        assert_eq!(
            default_realm(Some(path.as_os_str())),
            Some("HIVESTORE.TEST".to_string())
        );
        assert_eq!(default_realm(Some(dir.join("missing").as_os_str())), None);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// The client side of a whole negotiation against a real KDC: run by
    /// tests/python/test_kerberos.py, which starts the KDC and sets KRB5_CONFIG, KRB5CCNAME
    /// (alice logged in) and HIVESTORE_TEST_KEYTAB.
    #[test]
    #[ignore = "needs the KDC of tests/python/test_kerberos.py"]
    fn negotiates_each_qop_with_a_real_kdc() {
        let keytab = std::env::var("HIVESTORE_TEST_KEYTAB").expect("HIVESTORE_TEST_KEYTAB");
        let gss = Gss::load().unwrap();
        for qop in [Qop::Auth, Qop::AuthInt, Qop::AuthConf] {
            let kerberos = Kerberos::start(&KerberosSettings {
                principal: "hive/_HOST@HIVESTORE.TEST".to_string(),
                host: Some("localhost".to_string()),
                keytab: PathBuf::from(&keytab),
                qop: vec![Qop::AuthConf, Qop::AuthInt, Qop::Auth],
                auth_to_local: "DEFAULT".to_string(),
            })
            .unwrap();
            let mut server = kerberos.mechanism();
            let mut client = gss.initiator("hive@localhost").unwrap();
            let caller = negotiate(&mut server, &mut client, qop, b"").unwrap();
            assert_eq!(caller.principal, "alice@HIVESTORE.TEST");
            assert_eq!(caller.user, "alice");
            assert_eq!(caller.method, AuthMethod::Kerberos);
            let from_server = server.wrap(b"reply".to_vec()).unwrap();
            let to_server = match qop {
                Qop::Auth => {
                    assert_eq!(from_server, b"reply");
                    b"call".to_vec()
                }
                _ => {
                    assert_ne!(from_server, b"reply");
                    let (plain, encrypted) = client.unwrap(&from_server).unwrap();
                    assert_eq!(
                        (plain.as_slice(), encrypted),
                        (&b"reply"[..], qop == Qop::AuthConf)
                    );
                    client.wrap(b"call", qop == Qop::AuthConf).unwrap()
                }
            };
            assert_eq!(server.unwrap(to_server).unwrap(), b"call");
            if qop != Qop::Auth {
                let mut tampered = client.wrap(b"call", qop == Qop::AuthConf).unwrap();
                let last = tampered.len() - 1;
                tampered[last] ^= 1;
                let error = server.unwrap(tampered).unwrap_err();
                assert!(error.contains("GSS-API error unwrapping"), "{error}");
            }
        }
        let kerberos = Kerberos::start(&KerberosSettings {
            principal: "hive/localhost@HIVESTORE.TEST".to_string(),
            host: None,
            keytab: PathBuf::from(&keytab),
            qop: vec![Qop::AuthConf],
            auth_to_local: "DEFAULT".to_string(),
        })
        .unwrap();
        let mut client = gss.initiator("hive@localhost").unwrap();
        let error = negotiate(&mut kerberos.mechanism(), &mut client, Qop::Auth, b"").unwrap_err();
        assert!(error.contains("not one of those offered (0x04)"), "{error}");
        let mut client = gss.initiator("hive@localhost").unwrap();
        let error = negotiate(
            &mut kerberos.mechanism(),
            &mut client,
            Qop::AuthConf,
            b"bob",
        )
        .unwrap_err();
        assert!(
            error.contains("alice@HIVESTORE.TEST is not authorized to act as \"bob\""),
            "{error}"
        );
        let mut server = kerberos.mechanism();
        let error = server.step(b"\x60\x03garbage").unwrap_err();
        assert!(
            error.contains("GSS-API error accepting the client's token"),
            "{error}"
        );
        assert!(server
            .step(b"")
            .unwrap_err()
            .contains("negotiation is over"));
        let error = Kerberos::start(&KerberosSettings {
            principal: "nobody/localhost@HIVESTORE.TEST".to_string(),
            host: None,
            keytab: PathBuf::from(&keytab),
            qop: vec![Qop::Auth],
            auth_to_local: "DEFAULT".to_string(),
        })
        .err()
        .unwrap();
        assert!(
            error.contains("nobody/localhost@HIVESTORE.TEST has no usable key"),
            "{error}"
        );
    }

    /// Plays the client of RFC 4752 against `server`; the caller, or the server's error.
    fn negotiate(
        server: &mut GssapiMechanism,
        client: &mut Context,
        qop: Qop,
        authzid: &[u8],
    ) -> Result<Caller, String> {
        let mut token = client.step(b"").unwrap().token;
        for _ in 0..10 {
            let SaslStep::Challenge(challenge) = server.step(&token)? else {
                panic!("completed before the security layers were chosen");
            };
            if client.is_established() {
                let (offer, _) = client.unwrap(&challenge).unwrap();
                let offered = parse_layer_message(&offer).unwrap();
                assert_eq!(offered.authzid, "");
                let choice = layer_message(qop.bit(), 65536, authzid);
                let answer = client.wrap(&choice, false).unwrap();
                return match server.step(&answer)? {
                    SaslStep::Complete { caller, last } => {
                        assert!(last.is_empty());
                        Ok(caller)
                    }
                    SaslStep::Challenge(_) => panic!("a challenge after the layer choice"),
                };
            }
            token = client.step(&challenge).unwrap().token;
        }
        panic!("no completion in 10 steps");
    }

    #[test]
    fn start_refuses_a_partial_principal_and_an_unreadable_keytab() {
        let settings = KerberosSettings {
            principal: "hive/_HOST".to_string(),
            host: Some("db1".to_string()),
            keytab: PathBuf::from("/nonexistent/hive.keytab"),
            qop: vec![Qop::Auth],
            auth_to_local: "DEFAULT".to_string(),
        };
        let error = Kerberos::start(&settings).err().unwrap();
        assert!(
            error.contains("\"hive/db1\" must be a full principal"),
            "{error}"
        );
        let error = Kerberos::start(&KerberosSettings {
            principal: "hive/_HOST@R".to_string(),
            ..settings
        })
        .err()
        .unwrap();
        assert!(
            error.contains("/nonexistent/hive.keytab cannot be read"),
            "{error}"
        );
    }
}
