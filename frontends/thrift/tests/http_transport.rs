//! Hive's HTTP transport through a whole connection (`serve_stream`): requests as Thrift's
//! HTTP clients send them, the calls the generated client's bytes, the responses parsed and
//! their bodies read back with the generated client. Goal: calls are answered in the caller's
//! name (the user header, or a JWT's subject), keep-alive holds, and every refusal answers its
//! status and ends the connection.

mod common;
use common::Shared;
use std::io::{self, Cursor};
use std::net::{Ipv4Addr, SocketAddr};
use std::sync::Arc;
use std::time::{SystemTime, UNIX_EPOCH};

use base64::Engine;
use hivestore_engine::kv::MemoryBackend;
use hivestore_engine::{Durability, Store, StoreOptions};
use hivestore_idl::hive_metastore::{
    Database, TThriftHiveMetastoreSyncClient, ThriftHiveMetastoreSyncClient,
};
use hivestore_thrift::auth::jwt::{JwtSettings, JwtVerifier};
use hivestore_thrift::http::HttpSettings;
use hivestore_thrift::limits::Limits;
use hivestore_thrift::server::serve_stream;
use hivestore_thrift::service::ServerState;
use jsonwebtoken::{Algorithm, EncodingKey, Header};
use ring::rand::SystemRandom;
use ring::signature::{EcdsaKeyPair, KeyPair, ECDSA_P256_SHA256_FIXED_SIGNING};
use thrift::protocol::{TBinaryInputProtocol, TBinaryOutputProtocol};

fn state(http: HttpSettings) -> Arc<ServerState> {
    let mut options = StoreOptions::new("s3a://bucket/warehouse".to_string());
    options.durability = Durability::Memory;
    let store = Store::open_with_backend(Arc::new(MemoryBackend::new()), options).unwrap();
    Arc::new(ServerState::new(store).with_http(http))
}

/// Serves `requests` as one connection: how it ended, and the bytes written back.
fn serve(requests: Vec<u8>, http: HttpSettings) -> (Result<(), String>, Vec<u8>) {
    let responses = Shared::default();
    let peer = SocketAddr::from((Ipv4Addr::LOCALHOST, 1));
    let ended = serve_stream(
        Cursor::new(requests),
        responses.clone(),
        peer,
        state(http),
        Limits::default(),
    );
    (ended, responses.take())
}

/// The bytes of the calls: create database `db` (no owner), then get it.
fn calls() -> (Vec<u8>, Vec<u8>) {
    let requests = Shared::default();
    let mut client = ThriftHiveMetastoreSyncClient::new(
        TBinaryInputProtocol::new(Cursor::new(Vec::new()), true),
        TBinaryOutputProtocol::new(requests.clone(), true),
    );
    // The generated Default fills optional fields; no owner is sent.
    let _ = client.create_database(Database {
        name: Some("db".to_string()),
        owner_name: None,
        owner_type: None,
        ..Database::default()
    });
    let create = requests.take();
    let _ = client.get_database("db".to_string());
    (create, requests.take())
}

fn post(path: &str, headers: &[(&str, &str)], body: &[u8]) -> Vec<u8> {
    let mut request = format!(
        "POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/x-thrift\r\n\
         Accept: application/x-thrift\r\nContent-Length: {}\r\n",
        body.len()
    );
    for (name, value) in headers {
        request.push_str(&format!("{name}: {value}\r\n"));
    }
    request.push_str("\r\n");
    let mut bytes = request.into_bytes();
    bytes.extend_from_slice(body);
    bytes
}

/// One response: status, headers (lowercased names), body.
struct Response {
    status: u16,
    headers: Vec<(String, String)>,
    body: Vec<u8>,
}

impl Response {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(header, _)| header == name)
            .map(|(_, value)| value.as_str())
    }
}

fn responses(mut bytes: &[u8]) -> Vec<Response> {
    let mut all = Vec::new();
    while !bytes.is_empty() {
        let end = bytes.windows(4).position(|w| w == b"\r\n\r\n").unwrap() + 4;
        let head = std::str::from_utf8(&bytes[..end - 4]).unwrap();
        let mut lines = head.split("\r\n");
        let status = lines.next().unwrap()[9..12].parse().unwrap();
        let headers: Vec<(String, String)> = lines
            .map(|line| {
                let (name, value) = line.split_once(": ").unwrap();
                (name.to_ascii_lowercase(), value.to_string())
            })
            .collect();
        let length: usize = headers
            .iter()
            .find(|(name, _)| name == "content-length")
            .unwrap()
            .1
            .parse()
            .unwrap();
        all.push(Response {
            status,
            headers,
            body: bytes[end..end + length].to_vec(),
        });
        bytes = &bytes[end + length..];
    }
    all
}

/// Reads the replies of [`calls`] from two response bodies: the database got back.
fn database(create: &[u8], get: &[u8]) -> Database {
    let mut replies = create.to_vec();
    replies.extend_from_slice(get);
    let mut client = ThriftHiveMetastoreSyncClient::new(
        TBinaryInputProtocol::new(Cursor::new(replies), true),
        TBinaryOutputProtocol::new(io::sink(), true),
    );
    client
        .create_database(Database::default())
        .expect("database created");
    client.get_database(String::new()).expect("database read")
}

#[test]
fn calls_over_keep_alive_are_answered_in_the_user_headers_name() {
    let (create, get) = calls();
    let user = [("x-actor-username", "alice")];
    let mut requests = post("/metastore", &user, &create);
    requests.extend(post("/metastore", &user, &get));
    let (ended, written) = serve(requests, HttpSettings::default());
    assert_eq!(ended, Ok(()));
    let answers = responses(&written);
    assert_eq!(answers.len(), 2);
    for answer in &answers {
        assert_eq!(answer.status, 200);
        assert_eq!(answer.header("content-type"), Some("application/x-thrift"));
        assert_eq!(answer.header("connection"), None, "kept alive");
    }
    let got = database(&answers[0].body, &answers[1].body);
    assert_eq!(got.owner_name.as_deref(), Some("alice"));
}

#[test]
fn requests_not_served_are_answered_with_their_status_and_close_the_connection() {
    let (create, _) = calls();
    let user = [("x-actor-username", "alice")];
    let mut non_strict = vec![0, 0, 0, 7];
    non_strict.extend_from_slice(b"getName\x01\x00\x00\x00\x01\x00");
    let cases: Vec<(Vec<u8>, u16)> = vec![
        (b"GET /metastore HTTP/1.1\r\nHost: h\r\n\r\n".to_vec(), 405),
        (post("/elsewhere", &user, &create), 404),
        (post("/metastore", &[], &create), 401),
        (post("/metastore", &user, &non_strict), 400),
        (post("/metastore", &user, &create[..create.len() - 3]), 400),
        (post("/metastore", &user, b"\x80\x01garbage!"), 400),
        (
            b"POST /metastore HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n".to_vec(),
            411,
        ),
    ];
    for (request, status) in cases {
        let mut requests = request.clone();
        // A good request after it is never served: the connection ended.
        requests.extend(post("/metastore", &user, &create));
        let (ended, written) = serve(requests, HttpSettings::default());
        let answers = responses(&written);
        assert_eq!(answers.len(), 1, "{:?}", String::from_utf8_lossy(&request));
        assert_eq!(answers[0].status, status);
        assert_eq!(answers[0].header("connection"), Some("close"));
        assert!(answers[0]
            .header("content-type")
            .unwrap()
            .starts_with("text/plain"));
        assert!(ended.unwrap_err().contains(&format!("HTTP {status}")));
    }
}

/// A P-256 key as a JWKS file, and a signer of tokens for it.
struct Issuer {
    pkcs8: Vec<u8>,
    verifier: Arc<JwtVerifier>,
}

fn issuer() -> Issuer {
    let random = SystemRandom::new();
    let pkcs8 = EcdsaKeyPair::generate_pkcs8(&ECDSA_P256_SHA256_FIXED_SIGNING, &random)
        .unwrap()
        .as_ref()
        .to_vec();
    let pair = EcdsaKeyPair::from_pkcs8(&ECDSA_P256_SHA256_FIXED_SIGNING, &pkcs8, &random).unwrap();
    let point = pair.public_key().as_ref();
    let b64 = |bytes: &[u8]| base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes);
    let jwks = serde_json::json!({ "keys": [{
        "kty": "EC", "crv": "P-256", "kid": "k1",
        "x": b64(&point[1..33]), "y": b64(&point[33..65]),
    }]});
    // Tests run in parallel threads: each issuer gets a directory of its own.
    static ISSUERS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let issuer = ISSUERS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let dir = std::env::temp_dir().join(format!(
        "hivestore-http-jwt-{}-{}-{issuer}",
        std::process::id(),
        now()
    ));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("jwks.json");
    std::fs::write(&path, jwks.to_string()).unwrap();
    let verifier = JwtVerifier::load(JwtSettings {
        jwks: path,
        issuer: None,
        audience: None,
    })
    .unwrap();
    Issuer {
        pkcs8,
        verifier: Arc::new(verifier),
    }
}

fn now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_secs()
}

impl Issuer {
    fn token(&self, sub: &str, exp: u64) -> String {
        let mut header = Header::new(Algorithm::ES256);
        header.kid = Some("k1".into());
        let claims = serde_json::json!({ "sub": sub, "exp": exp });
        jsonwebtoken::encode(&header, &claims, &EncodingKey::from_ec_der(&self.pkcs8)).unwrap()
    }

    fn settings(&self) -> HttpSettings {
        HttpSettings {
            path: "hms".into(),
            jwt: Some(Arc::clone(&self.verifier)),
        }
    }
}

#[test]
fn under_jwt_the_tokens_subject_is_the_caller_and_the_user_header_is_ignored() {
    let issuer = issuer();
    let (create, get) = calls();
    let bearer = format!("Bearer {}", issuer.token("carol", now() + 300));
    let headers = [
        ("Authorization", bearer.as_str()),
        ("x-actor-username", "mallory"),
    ];
    let mut requests = post("/hms", &headers, &create);
    requests.extend(post("/hms", &headers, &get));
    let (ended, written) = serve(requests, issuer.settings());
    assert_eq!(ended, Ok(()));
    let answers = responses(&written);
    assert!(answers.iter().all(|answer| answer.status == 200));
    let got = database(&answers[0].body, &answers[1].body);
    assert_eq!(got.owner_name.as_deref(), Some("carol"));
}

#[test]
fn under_jwt_a_missing_or_refused_token_is_answered_401_with_a_bearer_challenge() {
    let issuer = issuer();
    let (create, _) = calls();
    let expired = format!("Bearer {}", issuer.token("carol", now() - 3600));
    let cases: [(Vec<(&str, &str)>, &str); 3] = [
        (vec![], "no bearer token"),
        (
            vec![("Authorization", "Basic YWxpY2U6cHc=")],
            "no bearer token",
        ),
        (vec![("Authorization", expired.as_str())], "expired"),
    ];
    for (headers, why) in cases {
        let (ended, written) = serve(post("/hms", &headers, &create), issuer.settings());
        let answers = responses(&written);
        assert_eq!(answers[0].status, 401);
        assert!(answers[0]
            .header("www-authenticate")
            .unwrap()
            .starts_with("Bearer"));
        assert!(String::from_utf8_lossy(&answers[0].body).contains(why));
        let reason = ended.unwrap_err();
        assert!(reason.contains(why), "{reason}");
        assert!(
            !reason.contains("eyJ"),
            "the token is never logged: {reason}"
        );
    }
}
