//! JWT bearer tokens (Hive's `metastore.authentication=JWT`, on the HTTP transport): a signed
//! token (JWS) checked against the public keys of a JWKS file, its subject the caller.
//!
//! Only asymmetric signatures are accepted (RS256/384/512, PS256, ES256/384): a JWKS holds
//! public keys, and a token signed with `none` or with HMAC over a public key (the classic
//! algorithm confusion) is refused before any key is used. A key is chosen by the token's `kid`
//! when it names one, or else each key of the token's algorithm's type is tried. `exp` is
//! required, `nbf` checked when present, both with [`CLOCK_LEEWAY_SECS`]; `iss` and `aud` are
//! checked when the server names them.

use std::collections::HashMap;
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, PoisonError, RwLock};

use base64::Engine;
use jsonwebtoken::errors::ErrorKind;
use jsonwebtoken::jwk::{AlgorithmParameters, EllipticCurve, Jwk, KeyAlgorithm, PublicKeyUse};
use jsonwebtoken::{Algorithm, DecodingKey, Validation};

use super::{AuthMethod, Caller};

/// Clock difference tolerated between the token's issuer and this server, in seconds, for `exp`
/// and `nbf`.
pub const CLOCK_LEEWAY_SECS: u64 = 60;
/// Largest JWKS file read, in bytes.
pub const JWKS_FILE_BYTES_MAX: u64 = 1024 * 1024;
/// Most keys a JWKS may hold: a token without `kid` is tried against each key of its type.
pub const JWKS_KEYS_MAX: usize = 64;
/// Longest `kid` quoted in a log line, in characters.
const KID_LOGGED_CHARS_MAX: usize = 64;

/// Where the keys come from and what a token must say, beside being signed by one of them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JwtSettings {
    /// The JWKS file (Hive reads `metastore.authentication.jwt.jwks.url`).
    pub jwks: PathBuf,
    /// The `iss` every token must carry, when set.
    pub issuer: Option<String>,
    /// An `aud` every token must include, when set.
    pub audience: Option<String>,
}

/// Why a token was refused: said in the log and in the 401's `error_description`. Never holds
/// the token.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JwtRefusal(String);

impl fmt::Display for JwtRefusal {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str(&self.0)
    }
}

fn refuse(reason: impl Into<String>) -> JwtRefusal {
    JwtRefusal(reason.into())
}

/// One public key of the JWKS.
struct Key {
    kid: Option<String>,
    decoding: DecodingKey,
    /// The algorithms it verifies: those of its type, or the one its `alg` names.
    algorithms: Vec<Algorithm>,
}

/// The keys of one reading of the JWKS.
struct Keys {
    all: Vec<Arc<Key>>,
    by_kid: HashMap<String, Arc<Key>>,
}

/// Verifies bearer tokens; its keys are replaced whole by [`JwtVerifier::reload`].
pub struct JwtVerifier {
    settings: JwtSettings,
    keys: RwLock<Arc<Keys>>,
}

impl fmt::Debug for JwtVerifier {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter
            .debug_struct("JwtVerifier")
            .field("settings", &self.settings)
            .field("keys", &self.current().all.len())
            .finish()
    }
}

/// The algorithms accepted, all asymmetric.
const ACCEPTED: [Algorithm; 6] = [
    Algorithm::RS256,
    Algorithm::RS384,
    Algorithm::RS512,
    Algorithm::PS256,
    Algorithm::ES256,
    Algorithm::ES384,
];

impl JwtVerifier {
    /// Reads the JWKS; the error names the file and why.
    pub fn load(settings: JwtSettings) -> Result<JwtVerifier, String> {
        let keys = read_jwks(&settings.jwks)?;
        Ok(JwtVerifier {
            settings,
            keys: RwLock::new(Arc::new(keys)),
        })
    }

    /// Reads the JWKS again: tokens are checked against what it holds now. On an error the
    /// keys in use are kept.
    pub fn reload(&self) -> Result<(), String> {
        let keys = read_jwks(&self.settings.jwks)?;
        *self.keys.write().unwrap_or_else(PoisonError::into_inner) = Arc::new(keys);
        Ok(())
    }

    /// The settings the verifier was made with.
    pub fn settings(&self) -> &JwtSettings {
        &self.settings
    }

    /// How many keys the JWKS read last held.
    pub fn key_count(&self) -> usize {
        self.current().all.len()
    }

    fn current(&self) -> Arc<Keys> {
        Arc::clone(&self.keys.read().unwrap_or_else(PoisonError::into_inner))
    }

    /// Checks `token` (the bearer token, compact JWS) and names its subject as the caller.
    pub fn verify(&self, token: &str) -> Result<Caller, JwtRefusal> {
        let (alg, kid) = header(token)?;
        let keys = self.current();
        let candidates: Vec<&Arc<Key>> = match &kid {
            Some(kid) => {
                let key = keys.by_kid.get(kid).ok_or_else(|| {
                    refuse(format!("unknown kid {}", quoted(kid, KID_LOGGED_CHARS_MAX)))
                })?;
                if !key.algorithms.contains(&alg) {
                    return Err(refuse(format!(
                        "alg {alg:?} does not match the key of kid {}",
                        quoted(kid, KID_LOGGED_CHARS_MAX)
                    )));
                }
                vec![key]
            }
            None => keys
                .all
                .iter()
                .filter(|key| key.algorithms.contains(&alg))
                .collect(),
        };
        if candidates.is_empty() {
            return Err(refuse(format!("no key of the JWKS verifies alg {alg:?}")));
        }
        let validation = self.validation(alg);
        let mut refusal = None;
        for key in candidates {
            match jsonwebtoken::decode::<Claims>(token, &key.decoding, &validation) {
                Ok(data) => return caller(data.claims),
                Err(error) => {
                    let reason = why(error.kind());
                    // Another key may verify it; any other refusal is final.
                    if *error.kind() != ErrorKind::InvalidSignature {
                        return Err(reason);
                    }
                    refusal = Some(reason);
                }
            }
        }
        Err(refusal.unwrap_or_else(|| refuse("bad signature")))
    }

    fn validation(&self, alg: Algorithm) -> Validation {
        let mut validation = Validation::new(alg);
        validation.leeway = CLOCK_LEEWAY_SECS;
        validation.validate_exp = true;
        validation.validate_nbf = true;
        validation.set_required_spec_claims(&["exp", "sub"]);
        match &self.settings.issuer {
            Some(issuer) => validation.set_issuer(&[issuer]),
            None => validation.iss = None,
        }
        match &self.settings.audience {
            Some(audience) => validation.set_audience(&[audience]),
            None => validation.validate_aud = false,
        }
        validation
    }
}

#[derive(serde::Deserialize)]
struct Claims {
    sub: Option<String>,
}

fn caller(claims: Claims) -> Result<Caller, JwtRefusal> {
    match claims.sub {
        Some(sub) if !sub.trim().is_empty() => Ok(Caller {
            principal: sub.clone(),
            user: sub,
            method: AuthMethod::Jwt,
        }),
        _ => Err(refuse("the subject (sub) is empty")),
    }
}

/// What a failed check says.
fn why(kind: &ErrorKind) -> JwtRefusal {
    match kind {
        ErrorKind::ExpiredSignature => refuse("expired (exp)"),
        ErrorKind::ImmatureSignature => refuse("not yet valid (nbf)"),
        ErrorKind::InvalidIssuer => refuse("wrong issuer (iss)"),
        ErrorKind::InvalidAudience => refuse("wrong audience (aud)"),
        ErrorKind::InvalidSignature => refuse("bad signature"),
        ErrorKind::MissingRequiredClaim(claim) => refuse(format!("no {claim} claim")),
        ErrorKind::InvalidAlgorithm => refuse("alg does not match the key"),
        ErrorKind::Json(_) | ErrorKind::Utf8(_) => refuse("unreadable claims"),
        ErrorKind::Base64(_) | ErrorKind::InvalidToken => refuse("malformed token"),
        other => refuse(format!("not verified: {other:?}")),
    }
}

/// The token's `alg` and `kid`, read before any key is used so that `none` and HMAC are
/// refused by name.
fn header(token: &str) -> Result<(Algorithm, Option<String>), JwtRefusal> {
    let malformed = || refuse("malformed token: not a compact JWS (header.payload.signature)");
    let mut parts = token.split('.');
    let (Some(encoded), Some(_), Some(_), None) =
        (parts.next(), parts.next(), parts.next(), parts.next())
    else {
        return Err(malformed());
    };
    let bytes = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(encoded.trim_end_matches('='))
        .map_err(|_| malformed())?;
    let value: serde_json::Value = serde_json::from_slice(&bytes).map_err(|_| malformed())?;
    let alg = value
        .get("alg")
        .and_then(|alg| alg.as_str())
        .ok_or_else(|| refuse("malformed token: its header names no alg"))?;
    let accepted = ACCEPTED
        .into_iter()
        .find(|accepted| format!("{accepted:?}") == alg)
        .ok_or_else(|| {
            refuse(format!(
                "alg {} is not accepted: only RS256, RS384, RS512, PS256, ES256, ES384",
                quoted(alg, 16)
            ))
        })?;
    let kid = value
        .get("kid")
        .and_then(|kid| kid.as_str())
        .map(str::to_string);
    Ok((accepted, kid))
}

/// `text` quoted for a log line or a header value: no double quotes, no control characters, at
/// most `max` characters.
fn quoted(text: &str, max: usize) -> String {
    let clean: String = text
        .chars()
        .take(max)
        .map(|c| {
            if c == '"' || c == '\\' || c.is_control() {
                '?'
            } else {
                c
            }
        })
        .collect();
    format!("'{clean}'")
}

fn read_jwks(path: &Path) -> Result<Keys, String> {
    let flag = format!("--jwks-file {}", path.display());
    let size = std::fs::metadata(path)
        .map_err(|error| format!("{flag}: {error}"))?
        .len();
    if size > JWKS_FILE_BYTES_MAX {
        return Err(format!(
            "{flag}: {size} bytes, over the {JWKS_FILE_BYTES_MAX} a JWKS may hold"
        ));
    }
    let text = std::fs::read(path).map_err(|error| format!("{flag}: {error}"))?;
    let value: serde_json::Value =
        serde_json::from_slice(&text).map_err(|error| format!("{flag}: not JSON: {error}"))?;
    let listed = value
        .get("keys")
        .and_then(|keys| keys.as_array())
        .ok_or_else(|| format!("{flag}: not a JWKS (no \"keys\" array)"))?;
    if listed.len() > JWKS_KEYS_MAX {
        return Err(format!(
            "{flag}: {} keys, over the {JWKS_KEYS_MAX} a JWKS may hold here",
            listed.len()
        ));
    }
    let mut keys = Keys {
        all: Vec::new(),
        by_kid: HashMap::new(),
    };
    for (index, listed) in listed.iter().enumerate() {
        match key(listed) {
            Ok(key) => {
                let key = Arc::new(key);
                if let Some(kid) = &key.kid {
                    if keys.by_kid.insert(kid.clone(), Arc::clone(&key)).is_some() {
                        return Err(format!("{flag}: kid {kid:?} names two keys"));
                    }
                }
                keys.all.push(key);
            }
            Err(reason) => {
                tracing::warn!(jwks = %path.display(), index, %reason, "JWKS key skipped")
            }
        }
    }
    if keys.all.is_empty() {
        return Err(format!(
            "{flag}: no usable signature key (RSA, or EC P-256/P-384)"
        ));
    }
    Ok(keys)
}

/// One JWK as a verification key; the error says why it is not one.
fn key(value: &serde_json::Value) -> Result<Key, String> {
    let jwk: Jwk =
        serde_json::from_value(value.clone()).map_err(|error| format!("not a JWK: {error}"))?;
    if matches!(
        jwk.common.public_key_use,
        Some(PublicKeyUse::Encryption) | Some(PublicKeyUse::Other(_))
    ) {
        return Err("not a signature key (\"use\" is not \"sig\")".into());
    }
    let by_type = match &jwk.algorithm {
        AlgorithmParameters::RSA(_) => vec![
            Algorithm::RS256,
            Algorithm::RS384,
            Algorithm::RS512,
            Algorithm::PS256,
        ],
        AlgorithmParameters::EllipticCurve(ec) => match ec.curve {
            EllipticCurve::P256 => vec![Algorithm::ES256],
            EllipticCurve::P384 => vec![Algorithm::ES384],
            _ => return Err(format!("EC curve {:?} is not accepted", ec.curve)),
        },
        AlgorithmParameters::OctetKey(_) => {
            return Err("a shared secret (kty oct): only public keys verify tokens here".into())
        }
        AlgorithmParameters::OctetKeyPair(_) => {
            return Err("an OKP key (EdDSA) is not accepted".into())
        }
    };
    let algorithms = match jwk.common.key_algorithm {
        None => by_type,
        Some(named) => {
            let named = key_algorithm(named)
                .filter(|named| by_type.contains(named))
                .ok_or_else(|| format!("alg {named:?} does not fit the key's type"))?;
            vec![named]
        }
    };
    let decoding = DecodingKey::from_jwk(&jwk).map_err(|error| format!("unusable: {error}"))?;
    Ok(Key {
        kid: jwk.common.key_id.clone(),
        decoding,
        algorithms,
    })
}

fn key_algorithm(named: KeyAlgorithm) -> Option<Algorithm> {
    match named {
        KeyAlgorithm::RS256 => Some(Algorithm::RS256),
        KeyAlgorithm::RS384 => Some(Algorithm::RS384),
        KeyAlgorithm::RS512 => Some(Algorithm::RS512),
        KeyAlgorithm::PS256 => Some(Algorithm::PS256),
        KeyAlgorithm::ES256 => Some(Algorithm::ES256),
        KeyAlgorithm::ES384 => Some(Algorithm::ES384),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use jsonwebtoken::{EncodingKey, Header};
    use ring::rand::SystemRandom;
    use ring::signature::{EcdsaKeyPair, KeyPair, ECDSA_P256_SHA256_FIXED_SIGNING};
    use std::time::{SystemTime, UNIX_EPOCH};

    /// A P-256 key pair: its PKCS#8 (for signing) and its JWK (for the JWKS).
    struct TestKey {
        pkcs8: Vec<u8>,
        jwk: serde_json::Value,
    }

    fn test_key(kid: &str) -> TestKey {
        let random = SystemRandom::new();
        let pkcs8 = EcdsaKeyPair::generate_pkcs8(&ECDSA_P256_SHA256_FIXED_SIGNING, &random)
            .unwrap()
            .as_ref()
            .to_vec();
        let pair =
            EcdsaKeyPair::from_pkcs8(&ECDSA_P256_SHA256_FIXED_SIGNING, &pkcs8, &random).unwrap();
        let point = pair.public_key().as_ref();
        let b64 = |bytes: &[u8]| base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes);
        let jwk = serde_json::json!({
            "kty": "EC", "crv": "P-256", "kid": kid, "use": "sig",
            "x": b64(&point[1..33]), "y": b64(&point[33..65]),
        });
        TestKey { pkcs8, jwk }
    }

    fn now() -> i64 {
        SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .unwrap()
            .as_secs() as i64
    }

    fn sign(key: &TestKey, kid: Option<&str>, claims: serde_json::Value) -> String {
        let mut header = Header::new(Algorithm::ES256);
        header.kid = kid.map(str::to_string);
        jsonwebtoken::encode(&header, &claims, &EncodingKey::from_ec_der(&key.pkcs8)).unwrap()
    }

    fn verifier(keys: &[&TestKey], issuer: Option<&str>, audience: Option<&str>) -> JwtVerifier {
        let dir = std::env::temp_dir().join(format!(
            "hivestore-jwt-{}-{}",
            std::process::id(),
            now_nanos()
        ));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("jwks.json");
        let jwks = serde_json::json!({ "keys": keys.iter().map(|key| key.jwk.clone()).collect::<Vec<_>>() });
        std::fs::write(&path, jwks.to_string()).unwrap();
        JwtVerifier::load(JwtSettings {
            jwks: path,
            issuer: issuer.map(str::to_string),
            audience: audience.map(str::to_string),
        })
        .unwrap()
    }

    fn now_nanos() -> u128 {
        SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .unwrap()
            .as_nanos()
    }

    fn refusal(verifier: &JwtVerifier, token: &str) -> String {
        verifier.verify(token).unwrap_err().to_string()
    }

    #[test]
    fn a_good_token_names_its_subject_as_the_caller() {
        let key = test_key("k1");
        let verifier = verifier(&[&key], Some("https://idp"), Some("hms"));
        let claims = serde_json::json!({
            "sub": "alice", "exp": now() + 300, "nbf": now() - 10,
            "iss": "https://idp", "aud": ["other", "hms"],
        });
        let caller = verifier
            .verify(&sign(&key, Some("k1"), claims.clone()))
            .unwrap();
        assert_eq!(
            caller,
            Caller {
                principal: "alice".into(),
                user: "alice".into(),
                method: AuthMethod::Jwt
            }
        );
        // Without a kid, the keys of its type are tried.
        let other = test_key("k0");
        let two = verifier_with(&[&other, &key]);
        assert_eq!(two.verify(&sign(&key, None, claims)).unwrap().user, "alice");
    }

    fn verifier_with(keys: &[&TestKey]) -> JwtVerifier {
        verifier(keys, None, None)
    }

    #[test]
    fn time_issuer_and_audience_are_checked() {
        let key = test_key("k1");
        let verifier = verifier(&[&key], Some("https://idp"), Some("hms"));
        let base = |extra: serde_json::Value| {
            let mut claims = serde_json::json!({
                "sub": "alice", "exp": now() + 300, "iss": "https://idp", "aud": "hms",
            });
            for (name, value) in extra.as_object().unwrap() {
                claims[name] = value.clone();
            }
            sign(&key, Some("k1"), claims)
        };
        let expired = base(serde_json::json!({ "exp": now() - 2 * CLOCK_LEEWAY_SECS as i64 }));
        assert!(refusal(&verifier, &expired).contains("expired"));
        // Within the leeway, a just-expired token still passes.
        assert!(verifier
            .verify(&base(serde_json::json!({ "exp": now() - 5 })))
            .is_ok());
        let early = base(serde_json::json!({ "nbf": now() + 2 * CLOCK_LEEWAY_SECS as i64 }));
        assert!(refusal(&verifier, &early).contains("not yet valid"));
        let issuer = base(serde_json::json!({ "iss": "https://evil" }));
        assert!(refusal(&verifier, &issuer).contains("wrong issuer"));
        let audience = base(serde_json::json!({ "aud": "spark" }));
        assert!(refusal(&verifier, &audience).contains("wrong audience"));
        let no_exp = sign(
            &key,
            Some("k1"),
            serde_json::json!({ "sub": "alice", "iss": "https://idp", "aud": "hms" }),
        );
        assert!(refusal(&verifier, &no_exp).contains("no exp claim"));
        let empty_sub = base(serde_json::json!({ "sub": "" }));
        assert!(refusal(&verifier, &empty_sub).contains("sub"));
    }

    #[test]
    fn a_token_signed_by_another_key_or_naming_an_unknown_kid_is_refused() {
        let key = test_key("k1");
        let stranger = test_key("k1");
        let verifier = verifier_with(&[&key]);
        let claims = serde_json::json!({ "sub": "alice", "exp": now() + 300 });
        let forged = sign(&stranger, Some("k1"), claims.clone());
        assert_eq!(refusal(&verifier, &forged), "bad signature");
        let unknown = sign(&key, Some("k9"), claims);
        assert_eq!(refusal(&verifier, &unknown), "unknown kid 'k9'");
    }

    fn unsigned(header: serde_json::Value, claims: serde_json::Value, signature: &[u8]) -> String {
        let b64 = |bytes: &[u8]| base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes);
        format!(
            "{}.{}.{}",
            b64(header.to_string().as_bytes()),
            b64(claims.to_string().as_bytes()),
            b64(signature)
        )
    }

    #[test]
    fn alg_none_and_hmac_over_the_public_key_are_refused_by_name() {
        let key = test_key("k1");
        let verifier = verifier_with(&[&key]);
        let claims = serde_json::json!({ "sub": "root", "exp": now() + 300 });
        let none = unsigned(
            serde_json::json!({ "alg": "none", "kid": "k1" }),
            claims.clone(),
            b"",
        );
        assert!(refusal(&verifier, &none).contains("alg 'none' is not accepted"));
        // HS256 keyed with the public key's JWK, which anyone can read.
        let secret = key.jwk.to_string();
        let mut header = Header::new(Algorithm::HS256);
        header.kid = Some("k1".into());
        let confused = jsonwebtoken::encode(
            &header,
            &claims,
            &EncodingKey::from_secret(secret.as_bytes()),
        )
        .unwrap();
        assert!(refusal(&verifier, &confused).contains("alg 'HS256' is not accepted"));
        // An accepted alg that does not fit the key's type.
        let rsa_on_ec = unsigned(
            serde_json::json!({ "alg": "RS256", "kid": "k1" }),
            claims,
            b"sig",
        );
        assert!(refusal(&verifier, &rsa_on_ec).contains("does not match the key"));
    }

    #[test]
    fn garbage_is_refused_as_malformed() {
        let key = test_key("k1");
        let verifier = verifier_with(&[&key]);
        for garbage in ["", "abc", "a.b", "a.b.c.d", "!!!.@@@.###", "eyJhbGciOi.x.y"] {
            assert!(
                refusal(&verifier, garbage).contains("malformed"),
                "{garbage}"
            );
        }
        let bad_claims = unsigned(
            serde_json::json!({ "alg": "ES256", "kid": "k1" }),
            serde_json::json!("not an object"),
            b"sig",
        );
        assert!(verifier.verify(&bad_claims).is_err());
    }

    #[test]
    fn reload_takes_new_keys_and_keeps_the_old_on_a_bad_file() {
        let old = test_key("old");
        let new = test_key("new");
        let verifier = verifier_with(&[&old]);
        let claims = serde_json::json!({ "sub": "bob", "exp": now() + 300 });
        let by_new = sign(&new, Some("new"), claims);
        assert!(refusal(&verifier, &by_new).contains("unknown kid"));
        let path = verifier.settings().jwks.clone();
        std::fs::write(&path, "{ not json").unwrap();
        assert!(verifier.reload().unwrap_err().contains("not JSON"));
        assert_eq!(verifier.key_count(), 1);
        let jwks = serde_json::json!({ "keys": [new.jwk, { "kty": "oct", "k": "c2VjcmV0" }] });
        std::fs::write(&path, jwks.to_string()).unwrap();
        verifier.reload().unwrap();
        assert_eq!(verifier.key_count(), 1, "the shared secret is skipped");
        assert_eq!(verifier.verify(&by_new).unwrap().user, "bob");
    }
}
