//! The server side of SASL DIGEST-MD5 (RFC 2831), as Hadoop's clients log in with a
//! delegation token: the SASL user name is the token's identifier and the password its
//! password, both in standard base64 (Hadoop's `SaslRpcServer`), the realm `default`.
//!
//! The qualities of protection offered are the server's SASL QOP list (`--sasl-qop`, Hadoop's
//! `hadoop.rpc.protection`): `auth`, and `auth-int` and `auth-conf` with the security layers
//! of [`super::digest_layer`] (ciphers `3des` and `rc4`). The client's choice must be among
//! them. The client's response is parsed within [`RESPONSE_BYTES_MAX`] and
//! [`DIRECTIVES_MAX`], each directive at most once; its hash is compared in constant time.

use std::sync::Arc;

use ring::rand::{SecureRandom, SystemRandom};
use subtle::ConstantTimeEq;

use super::delegation::now_millis;
use super::digest_layer::{Cipher, Layer, Side};
use super::gssapi::Qop;
use super::hadoop_token::{decode_base64, standard_encode};
use super::{Caller, SaslMechanism, SaslStep};
use crate::service::ServerState;

/// The mechanism's name in a START frame.
pub const MECHANISM: &str = "DIGEST-MD5";
/// The realm Hadoop's servers name (`SaslRpcServer.SASL_DEFAULT_REALM`).
pub const DEFAULT_REALM: &str = "default";
/// The longest client response read (RFC 2831: a digest-response is under 4096 bytes).
pub const RESPONSE_BYTES_MAX: usize = 4096;
/// The most directives a response may hold.
pub const DIRECTIVES_MAX: usize = 32;
/// The random bytes of a nonce (base64 in the challenge).
pub const NONCE_BYTES: usize = 18;

/// Finds the password of a SASL user name: the caller it proves and the password (as text,
/// hashed as the client hashes it), or why the name is refused.
pub type Credentials = Box<dyn Fn(&str) -> Result<(Caller, String), String> + Send>;

enum Stage {
    Start,
    Challenged,
    Done,
}

/// One connection's DIGEST-MD5 negotiation.
pub struct DigestMd5 {
    realm: String,
    nonce: String,
    credentials: Credentials,
    stage: Stage,
    /// The QOPs offered, in the server's order.
    qops: Vec<Qop>,
    /// The security layer after a login with `auth-int` or `auth-conf`.
    layer: Option<Layer>,
}

impl DigestMd5 {
    /// A negotiation in `realm` offering `qops`, whose user names `credentials` resolves,
    /// with a fresh nonce.
    pub fn new(realm: &str, qops: &[Qop], credentials: Credentials) -> Result<Self, String> {
        let mut random = [0_u8; NONCE_BYTES];
        SystemRandom::new()
            .fill(&mut random)
            .map_err(|_| "the system's random generator failed".to_string())?;
        Ok(Self::with_nonce(
            realm,
            &standard_encode(&random),
            qops,
            credentials,
        ))
    }

    /// A negotiation with a given nonce (tests replay known exchanges with it).
    pub fn with_nonce(realm: &str, nonce: &str, qops: &[Qop], credentials: Credentials) -> Self {
        DigestMd5 {
            realm: realm.to_owned(),
            nonce: nonce.to_owned(),
            credentials,
            stage: Stage::Start,
            qops: qops.to_vec(),
            layer: None,
        }
    }

    /// A negotiation for a login with one of the server's delegation tokens, offering the
    /// server's SASL QOPs.
    pub fn for_tokens(state: Arc<ServerState>, qops: &[Qop]) -> Result<Self, String> {
        let credentials: Credentials = Box::new(move |user_name| {
            let identifier = decode_base64(user_name)
                .map_err(|error| format!("the user name is not a token identifier: {error}"))?;
            let (caller, password) =
                state
                    .secret_manager()
                    .check(state.store(), &identifier, now_millis())?;
            Ok((caller, standard_encode(&password)))
        });
        DigestMd5::new(DEFAULT_REALM, qops, credentials)
    }

    fn challenge(&self) -> Vec<u8> {
        let qops: Vec<&str> = self.qops.iter().map(|qop| qop.name()).collect();
        let ciphers = if self.qops.contains(&Qop::AuthConf) {
            let names: Vec<&str> = Cipher::ALL.iter().map(|cipher| cipher.name()).collect();
            format!(",cipher=\"{}\"", names.join(","))
        } else {
            String::new()
        };
        format!(
            "realm=\"{}\",nonce=\"{}\",qop=\"{}\"{ciphers},charset=utf-8,algorithm=md5-sess",
            self.realm,
            self.nonce,
            qops.join(",")
        )
        .into_bytes()
    }

    fn verify(&mut self, response: &[u8]) -> Result<SaslStep, String> {
        let directives = parse(response)?;
        let get = |name: &str| {
            directives
                .iter()
                .find(|(key, _)| key.eq_ignore_ascii_case(name))
                .map(|(_, value)| value.as_str())
        };
        let required = |name: &'static str| {
            get(name).ok_or_else(|| format!("DIGEST-MD5: the response lacks {name}"))
        };
        let qop = match get("qop").unwrap_or("auth") {
            "auth" => Qop::Auth,
            "auth-int" => Qop::AuthInt,
            "auth-conf" => Qop::AuthConf,
            other => return Err(format!("DIGEST-MD5: unknown qop {other:?}")),
        };
        if !self.qops.contains(&qop) {
            let offered: Vec<&str> = self.qops.iter().map(|qop| qop.name()).collect();
            return Err(format!(
                "DIGEST-MD5: qop {} is not offered; this server offers {} (its sasl_qop)",
                qop.name(),
                offered.join(",")
            ));
        }
        let cipher = match (qop, get("cipher")) {
            (Qop::AuthConf, Some(name)) => Some(Cipher::parse(name).ok_or_else(|| {
                format!("DIGEST-MD5: cipher {name:?} is not offered (3des, rc4 are)")
            })?),
            (Qop::AuthConf, None) => {
                return Err("DIGEST-MD5: qop auth-conf without a cipher".to_string())
            }
            _ => None,
        };
        if let Some(charset) = get("charset") {
            if !charset.eq_ignore_ascii_case("utf-8") {
                return Err(format!("DIGEST-MD5: unknown charset {charset:?}"));
            }
        }
        let realm = get("realm").unwrap_or("");
        if realm != self.realm {
            return Err(format!(
                "DIGEST-MD5: realm {realm:?} is not {:?}",
                self.realm
            ));
        }
        if required("nonce")? != self.nonce {
            return Err("DIGEST-MD5: the nonce is not the one this server sent".to_string());
        }
        let nc = required("nc")?;
        if u32::from_str_radix(nc, 16) != Ok(1) || nc.len() != 8 {
            return Err(format!("DIGEST-MD5: nonce count {nc:?} is not 00000001"));
        }
        let cnonce = required("cnonce")?;
        if cnonce.is_empty() {
            return Err("DIGEST-MD5: the cnonce is empty".to_string());
        }
        let digest_uri = required("digest-uri")?;
        let user_name = required("username")?;
        let authzid = get("authzid");
        if authzid.is_some_and(|authzid| authzid != user_name) {
            return Err("DIGEST-MD5: the authorization id is not the user name".to_string());
        }
        let client_hash = required("response")?.to_ascii_lowercase();
        let (caller, password) = (self.credentials)(user_name)?;
        let inputs = Inputs {
            user_name,
            realm,
            password: &password,
            nonce: &self.nonce,
            cnonce,
            nc,
            authzid,
            qop,
        };
        // Under a security layer A2 ends in 32 zeros (RFC 2831 §2.1.2.1).
        let layer_marker = if qop == Qop::Auth {
            ""
        } else {
            ":00000000000000000000000000000000"
        };
        let expected = response_hash(&inputs, &format!("AUTHENTICATE:{digest_uri}{layer_marker}"));
        if !bool::from(expected.as_bytes().ct_eq(client_hash.as_bytes())) {
            return Err(format!(
                "DIGEST-MD5: the response does not match the password of {}'s token",
                caller.principal
            ));
        }
        let rspauth = response_hash(&inputs, &format!(":{digest_uri}{layer_marker}"));
        if qop != Qop::Auth {
            self.layer = Some(Layer::new(&session_key(&inputs), Side::Server, cipher));
        }
        Ok(SaslStep::Complete {
            caller,
            last: format!("rspauth={rspauth}").into_bytes(),
        })
    }
}

impl SaslMechanism for DigestMd5 {
    fn name(&self) -> &'static str {
        MECHANISM
    }

    fn step(&mut self, response: &[u8]) -> Result<SaslStep, String> {
        match self.stage {
            Stage::Start => {
                if !response.is_empty() {
                    return Err("DIGEST-MD5: the first response must be empty".to_string());
                }
                self.stage = Stage::Challenged;
                Ok(SaslStep::Challenge(self.challenge()))
            }
            Stage::Challenged => {
                self.stage = Stage::Done;
                self.verify(response)
            }
            Stage::Done => Err("DIGEST-MD5: the negotiation is over".to_string()),
        }
    }

    fn wrap(&mut self, payload: Vec<u8>) -> Result<Vec<u8>, String> {
        match &mut self.layer {
            Some(layer) => layer.wrap(payload),
            None => Ok(payload),
        }
    }

    fn unwrap(&mut self, payload: Vec<u8>) -> Result<Vec<u8>, String> {
        match &mut self.layer {
            Some(layer) => layer.unwrap(payload),
            None => Ok(payload),
        }
    }
}

/// What a response hash is computed from.
pub struct Inputs<'a> {
    /// The user name.
    pub user_name: &'a str,
    /// The realm.
    pub realm: &'a str,
    /// The password.
    pub password: &'a str,
    /// The server's nonce.
    pub nonce: &'a str,
    /// The client's nonce.
    pub cnonce: &'a str,
    /// The nonce count, as sent.
    pub nc: &'a str,
    /// The authorization id, when sent.
    pub authzid: Option<&'a str>,
    /// The QOP the client chose.
    pub qop: Qop,
}

/// H(A1), the binary MD5 of A1: the session key the layers' keys derive from.
pub fn session_key(inputs: &Inputs<'_>) -> [u8; 16] {
    let mut secret = Vec::new();
    secret.extend_from_slice(&latin1_if_possible(inputs.user_name));
    secret.push(b':');
    secret.extend_from_slice(&latin1_if_possible(inputs.realm));
    secret.push(b':');
    secret.extend_from_slice(&latin1_if_possible(inputs.password));
    let mut a1 = md5::compute(&secret).0.to_vec();
    a1.extend_from_slice(format!(":{}:{}", inputs.nonce, inputs.cnonce).as_bytes());
    if let Some(authzid) = inputs.authzid {
        a1.extend_from_slice(format!(":{authzid}").as_bytes());
    }
    md5::compute(&a1).0
}

/// RFC 2831's response value for the `a2` given (`AUTHENTICATE:` and the digest URI for the
/// client's response, `:` and the URI for the server's `rspauth`; under a layer, each ends in
/// `:` and 32 zeros).
pub fn response_hash(inputs: &Inputs<'_>, a2: &str) -> String {
    let ha1 = md5::Digest(session_key(inputs));
    let ha2 = md5::compute(a2.as_bytes());
    let kd = format!(
        "{ha1:x}:{}:{}:{}:{}:{ha2:x}",
        inputs.nonce,
        inputs.nc,
        inputs.cnonce,
        inputs.qop.name()
    );
    format!("{:x}", md5::compute(kd.as_bytes()))
}

/// RFC 2831 with `charset=utf-8`: a string whose characters all fit ISO 8859-1 is hashed in
/// it; any other in UTF-8.
fn latin1_if_possible(text: &str) -> Vec<u8> {
    if text.chars().all(|c| u32::from(c) <= 0xff) {
        text.chars().map(|c| u32::from(c) as u8).collect()
    } else {
        text.as_bytes().to_vec()
    }
}

/// The directives of a response: `name=value` or `name="quoted"`, comma-separated, spaces
/// around them allowed, each name once.
fn parse(response: &[u8]) -> Result<Vec<(String, String)>, String> {
    if response.len() > RESPONSE_BYTES_MAX {
        return Err(format!(
            "DIGEST-MD5: a response of {} bytes is longer than the {RESPONSE_BYTES_MAX} allowed",
            response.len()
        ));
    }
    let text = std::str::from_utf8(response)
        .map_err(|_| "DIGEST-MD5: the response is not UTF-8".to_string())?;
    let mut directives: Vec<(String, String)> = Vec::new();
    let mut rest = text.trim_start();
    while !rest.is_empty() {
        if directives.len() == DIRECTIVES_MAX {
            return Err(format!(
                "DIGEST-MD5: more than {DIRECTIVES_MAX} directives in the response"
            ));
        }
        let equals = rest
            .find('=')
            .ok_or_else(|| format!("DIGEST-MD5: a directive without a value: {rest:?}"))?;
        let name = rest[..equals].trim();
        if name.is_empty() || !name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-') {
            return Err(format!("DIGEST-MD5: a bad directive name {name:?}"));
        }
        rest = rest[equals + 1..].trim_start();
        let value;
        if let Some(quoted) = rest.strip_prefix('"') {
            let mut unquoted = String::new();
            let mut chars = quoted.char_indices();
            let mut end = None;
            while let Some((index, c)) = chars.next() {
                match c {
                    '\\' => match chars.next() {
                        Some((_, escaped)) => unquoted.push(escaped),
                        None => break,
                    },
                    '"' => {
                        end = Some(index);
                        break;
                    }
                    other => unquoted.push(other),
                }
            }
            let end = end.ok_or_else(|| format!("DIGEST-MD5: {name}'s quotes are not closed"))?;
            value = unquoted;
            rest = quoted[end + 1..].trim_start();
        } else {
            let end = rest.find(',').unwrap_or(rest.len());
            value = rest[..end].trim().to_owned();
            rest = &rest[end..];
        }
        if directives
            .iter()
            .any(|(seen, _)| seen.eq_ignore_ascii_case(name))
        {
            return Err(format!("DIGEST-MD5: {name} appears twice in the response"));
        }
        directives.push((name.to_owned(), value));
        match rest.strip_prefix(',') {
            Some(after) => rest = after.trim_start(),
            None if rest.is_empty() => {}
            None => return Err(format!("DIGEST-MD5: unexpected text after {name}")),
        }
    }
    Ok(directives)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::auth::AuthMethod;

    /// RFC 2831 §4's example: chris, password "secret", in realm elwood.innosoft.com.
    fn rfc_example() -> DigestMd5 {
        rfc_example_offering(&[Qop::Auth])
    }

    fn rfc_example_offering(qops: &[Qop]) -> DigestMd5 {
        let credentials: Credentials = Box::new(|user| {
            if user != "chris" {
                return Err(format!("no user {user}"));
            }
            let caller = Caller {
                principal: "chris".into(),
                user: "chris".into(),
                method: AuthMethod::Token,
            };
            Ok((caller, "secret".into()))
        });
        DigestMd5::with_nonce("elwood.innosoft.com", "OA6MG9tEQGm2hh", qops, credentials)
    }

    fn rfc_response(response: &str) -> String {
        format!(
            "charset=utf-8,username=\"chris\",realm=\"elwood.innosoft.com\",\
             nonce=\"OA6MG9tEQGm2hh\",nc=00000001,cnonce=\"OA6MHXh6VqTrRk\",\
             digest-uri=\"imap/elwood.innosoft.com\",response={response},qop=auth"
        )
    }

    #[test]
    fn the_rfc_example_authenticates_and_gets_its_rspauth() {
        let mut mechanism = rfc_example();
        let SaslStep::Challenge(challenge) = mechanism.step(b"").unwrap() else {
            panic!("no challenge");
        };
        let challenge = String::from_utf8(challenge).unwrap();
        assert!(
            challenge.contains("nonce=\"OA6MG9tEQGm2hh\""),
            "{challenge}"
        );
        assert!(challenge.contains("qop=\"auth\""), "{challenge}");
        assert!(challenge.contains("algorithm=md5-sess"), "{challenge}");
        // The response value RFC 2831 gives for these inputs.
        let response = rfc_response("d388dad90d4bbd760a152321f2143af7");
        match mechanism.step(response.as_bytes()).unwrap() {
            SaslStep::Complete { caller, last } => {
                assert_eq!(caller.user, "chris");
                assert_eq!(last, b"rspauth=ea40f60335c427b5527b84dbabcdfffd");
            }
            other => panic!("{other:?}"),
        }
        assert!(mechanism.step(b"").is_err(), "nothing after completion");
    }

    #[test]
    fn a_client_computed_independently_is_accepted_and_a_wrong_password_refused() {
        // The client's side written out here from RFC 2831's formulas, over raw MD5.
        let hex = |bytes: &[u8]| format!("{:x}", md5::compute(bytes));
        let mut a1 = md5::compute(b"chris:elwood.innosoft.com:secret").0.to_vec();
        a1.extend_from_slice(b":OA6MG9tEQGm2hh:OA6MHXh6VqTrRk");
        let a2 = hex(b"AUTHENTICATE:imap/elwood.innosoft.com");
        let kd = format!(
            "{}:OA6MG9tEQGm2hh:00000001:OA6MHXh6VqTrRk:auth:{a2}",
            hex(&a1)
        );
        let response = hex(kd.as_bytes());
        assert_eq!(response, "d388dad90d4bbd760a152321f2143af7");
        let mut mechanism = rfc_example();
        mechanism.step(b"").unwrap();
        assert!(matches!(
            mechanism.step(rfc_response(&response.to_uppercase()).as_bytes()),
            Ok(SaslStep::Complete { .. })
        ));

        let mut mechanism = rfc_example();
        mechanism.step(b"").unwrap();
        let error = mechanism
            .step(rfc_response("00000000000000000000000000000000").as_bytes())
            .unwrap_err();
        assert!(error.contains("does not match"), "{error}");
    }

    #[test]
    fn bad_responses_are_refused_with_a_clear_error() {
        let good = rfc_response("d388dad90d4bbd760a152321f2143af7");
        let cases: Vec<(String, &str)> = vec![
            (
                good.replace("qop=auth", "qop=auth-conf"),
                "auth-conf is not offered",
            ),
            (
                good.replace("qop=auth", "qop=auth-int"),
                "auth-int is not offered",
            ),
            (good.replace("qop=auth", "qop=secret"), "unknown qop"),
            (good.replace("OA6MG9tEQGm2hh", "other"), "nonce"),
            (good.replace("nc=00000001", "nc=00000002"), "nonce count"),
            (good.replace("\"chris\"", "\"eve\""), "no user eve"),
            (format!("{good},username=\"chris\""), "appears twice"),
            (
                good.replace("cnonce=\"OA6MHXh6VqTrRk\",", ""),
                "lacks cnonce",
            ),
            (
                good.replace("realm=\"elwood.innosoft.com\"", "realm=\"x\""),
                "realm",
            ),
            ("username=\"chris".to_string(), "not closed"),
            ("username".to_string(), "without a value"),
            (
                (0..=DIRECTIVES_MAX)
                    .map(|index| format!("d{index}=v"))
                    .collect::<Vec<_>>()
                    .join(","),
                "directives",
            ),
            ("x".repeat(RESPONSE_BYTES_MAX + 1), "longer than"),
            (good.replace("charset=utf-8", "charset=latin9"), "charset"),
        ];
        for (response, wanted) in cases {
            let mut mechanism = rfc_example();
            mechanism.step(b"").unwrap();
            let error = mechanism.step(response.as_bytes()).unwrap_err();
            assert!(error.contains(wanted), "{response:?}: {error}");
        }
        let mut mechanism = rfc_example();
        assert!(
            mechanism.step(b"username=x").is_err(),
            "no initial response"
        );
        let mut mechanism = rfc_example();
        mechanism.step(b"").unwrap();
        assert!(mechanism.step(&[0xff, 0xfe]).is_err());
    }

    #[test]
    fn nonces_are_fresh() {
        let none: fn() -> Credentials = || Box::new(|_| Err("none".to_string()));
        let first = DigestMd5::new(DEFAULT_REALM, &[Qop::Auth], none())
            .unwrap()
            .nonce;
        let second = DigestMd5::new(DEFAULT_REALM, &[Qop::Auth], none())
            .unwrap()
            .nonce;
        assert_ne!(first, second);
        assert_eq!(first.len(), NONCE_BYTES / 3 * 4);
    }

    /// The RFC example's client side under a layer, from RFC 2831's formulas over raw MD5:
    /// its response, the rspauth it expects and H(A1).
    fn layered_client(qop: &str) -> (String, String, [u8; 16]) {
        let hex = |bytes: &[u8]| format!("{:x}", md5::compute(bytes));
        let mut a1 = md5::compute(b"chris:elwood.innosoft.com:secret").0.to_vec();
        a1.extend_from_slice(b":OA6MG9tEQGm2hh:OA6MHXh6VqTrRk");
        let zeros = "00000000000000000000000000000000";
        let kd = |a2: String| {
            hex(format!(
                "{}:OA6MG9tEQGm2hh:00000001:OA6MHXh6VqTrRk:{qop}:{}",
                hex(&a1),
                hex(a2.as_bytes())
            )
            .as_bytes())
        };
        let response = kd(format!("AUTHENTICATE:imap/elwood.innosoft.com:{zeros}"));
        let rspauth = kd(format!(":imap/elwood.innosoft.com:{zeros}"));
        (response, rspauth, md5::compute(&a1).0)
    }

    fn layered_response(qop: &str, response: &str, cipher: Option<&str>) -> String {
        let cipher = cipher
            .map(|name| format!(",cipher={name}"))
            .unwrap_or_default();
        rfc_response(response).replace("qop=auth", &format!("qop={qop}{cipher},maxbuf=65536"))
    }

    const ALL_QOPS: [Qop; 3] = [Qop::AuthConf, Qop::AuthInt, Qop::Auth];

    #[test]
    fn digest_the_challenge_offers_the_servers_qops_and_ciphers_for_auth_conf() {
        let mut mechanism = rfc_example_offering(&ALL_QOPS);
        let SaslStep::Challenge(challenge) = mechanism.step(b"").unwrap() else {
            panic!("no challenge");
        };
        let challenge = String::from_utf8(challenge).unwrap();
        assert!(
            challenge.contains("qop=\"auth-conf,auth-int,auth\",cipher=\"3des,rc4\""),
            "{challenge}"
        );
        let mut mechanism = rfc_example_offering(&[Qop::AuthInt, Qop::Auth]);
        let SaslStep::Challenge(challenge) = mechanism.step(b"").unwrap() else {
            panic!("no challenge");
        };
        let challenge = String::from_utf8(challenge).unwrap();
        assert!(challenge.contains("qop=\"auth-int,auth\","), "{challenge}");
        assert!(!challenge.contains("cipher"), "{challenge}");
    }

    #[test]
    fn digest_an_auth_int_login_then_checks_every_frame() {
        let (response, rspauth, ha1) = layered_client("auth-int");
        let mut mechanism = rfc_example_offering(&ALL_QOPS);
        mechanism.step(b"").unwrap();
        match mechanism
            .step(layered_response("auth-int", &response, None).as_bytes())
            .unwrap()
        {
            SaslStep::Complete { last, .. } => {
                assert_eq!(last, format!("rspauth={rspauth}").into_bytes())
            }
            other => panic!("{other:?}"),
        }
        let mut client = Layer::new(&ha1, Side::Client, None);
        let frame = client.wrap(b"get_all_databases".to_vec()).unwrap();
        assert_eq!(frame.len(), 17 + 16);
        assert_eq!(&frame[..17], b"get_all_databases");
        assert_eq!(
            mechanism.unwrap(frame.clone()).unwrap(),
            b"get_all_databases"
        );
        assert!(mechanism.unwrap(frame).is_err(), "a replay is refused");
        let reply = mechanism.wrap(b"[default]".to_vec()).unwrap();
        assert_eq!(client.unwrap(reply).unwrap(), b"[default]");
    }

    #[test]
    fn digest_an_auth_conf_login_encrypts_with_the_clients_cipher() {
        let (response, _, ha1) = layered_client("auth-conf");
        for cipher in Cipher::ALL {
            let mut mechanism = rfc_example_offering(&ALL_QOPS);
            mechanism.step(b"").unwrap();
            let reply = layered_response("auth-conf", &response, Some(cipher.name()));
            assert!(matches!(
                mechanism.step(reply.as_bytes()),
                Ok(SaslStep::Complete { .. })
            ));
            let mut client = Layer::new(&ha1, Side::Client, Some(cipher));
            let frame = client.wrap(b"get_all_databases".to_vec()).unwrap();
            assert!(!frame.windows(8).any(|window| window == b"get_all_"));
            assert_eq!(mechanism.unwrap(frame).unwrap(), b"get_all_databases");
            let reply = mechanism.wrap(b"[default]".to_vec()).unwrap();
            assert_eq!(client.unwrap(reply).unwrap(), b"[default]");
        }
    }

    #[test]
    fn digest_layered_logins_need_an_offered_qop_and_cipher() {
        let (response, _, _) = layered_client("auth-conf");
        let cases = [
            (&ALL_QOPS[..], None, "without a cipher"),
            (&ALL_QOPS[..], Some("des"), "\"des\" is not offered"),
            (&ALL_QOPS[..], Some("rc4-40"), "is not offered"),
            (
                &[Qop::AuthInt, Qop::Auth][..],
                Some("rc4"),
                "auth-conf is not offered",
            ),
        ];
        for (qops, cipher, wanted) in cases {
            let mut mechanism = rfc_example_offering(qops);
            mechanism.step(b"").unwrap();
            let reply = layered_response("auth-conf", &response, cipher);
            let error = mechanism.step(reply.as_bytes()).unwrap_err();
            assert!(error.contains(wanted), "{cipher:?}: {error}");
        }
        // The hash of a layered login covers the QOP: auth's hash does not pass as auth-int's.
        let mut mechanism = rfc_example_offering(&ALL_QOPS);
        mechanism.step(b"").unwrap();
        let reply = layered_response("auth-int", "d388dad90d4bbd760a152321f2143af7", None);
        assert!(mechanism.step(reply.as_bytes()).is_err());
    }

    #[test]
    fn digest_an_auth_login_leaves_frames_as_they_are() {
        let mut mechanism = rfc_example_offering(&ALL_QOPS);
        mechanism.step(b"").unwrap();
        let reply = rfc_response("d388dad90d4bbd760a152321f2143af7");
        assert!(matches!(
            mechanism.step(reply.as_bytes()),
            Ok(SaslStep::Complete { .. })
        ));
        assert_eq!(mechanism.wrap(b"x".to_vec()).unwrap(), b"x");
        assert_eq!(mechanism.unwrap(b"y".to_vec()).unwrap(), b"y");
    }
}
