use std::sync::Arc;
use std::time::Duration;

use hivestore_engine as engine;

use super::*;
use crate::auth::delegation::TokenSettings;
use crate::auth::digest_md5::DigestMd5;
use crate::auth::gssapi::Qop;
use crate::auth::hadoop_token::{standard_encode, Token};
use crate::auth::{Caller, SaslMechanism, SaslStep};
use crate::errors::declared_parts;
use crate::service::{ServerSettings, ServerState};

fn memory_state(tokens: TokenSettings) -> Arc<ServerState> {
    let mut options = engine::StoreOptions::new("memory:/warehouse");
    options.durability = engine::Durability::Memory;
    let backend = Arc::new(engine::kv::MemoryBackend::new());
    let store = engine::Store::open_with_backend(backend, options).unwrap();
    with_tokens(store, tokens)
}

fn with_tokens(store: engine::Store, tokens: TokenSettings) -> Arc<ServerState> {
    let settings = ServerSettings {
        delegation_tokens: tokens,
        ..ServerSettings::default()
    };
    Arc::new(ServerState::new(store).with_settings(settings))
}

fn caller(principal: &str, method: AuthMethod) -> Caller {
    Caller {
        principal: principal.into(),
        user: principal.split(['/', '@']).next().unwrap().into(),
        method,
    }
}

fn session(state: &Arc<ServerState>, caller: Option<Caller>) -> Session {
    let session = Session::new(Arc::clone(state), "127.0.0.1:9083".parse().unwrap());
    match caller {
        Some(caller) => session.authenticated(caller),
        None => session,
    }
}

fn kerberos(state: &Arc<ServerState>, principal: &str) -> Session {
    session(state, Some(caller(principal, AuthMethod::Kerberos)))
}

fn message(error: thrift::Error) -> (String, String) {
    match declared_parts(&error) {
        Some((kind, message)) => (kind.to_string(), message.unwrap_or_default().to_string()),
        None => match error {
            thrift::Error::Application(error) => ("undeclared".to_string(), error.message),
            other => panic!("{other:?}"),
        },
    }
}

/// A DIGEST-MD5 login with `token`, the client's side computed here from RFC 2831.
fn digest_login(state: &Arc<ServerState>, token: &str) -> Result<Caller, String> {
    let (token, _) = Token::from_url_string(token).unwrap();
    let user = standard_encode(&token.identifier);
    let password = standard_encode(&token.password);
    let mut mechanism = DigestMd5::for_tokens(Arc::clone(state), &[Qop::Auth]).unwrap();
    let SaslStep::Challenge(challenge) = mechanism.step(b"")? else {
        panic!("no challenge");
    };
    let challenge = String::from_utf8(challenge).unwrap();
    let nonce = challenge
        .split("nonce=\"")
        .nth(1)
        .and_then(|rest| rest.split('"').next())
        .unwrap();
    let hex = |bytes: &[u8]| format!("{:x}", md5::compute(bytes));
    let mut a1 = md5::compute(format!("{user}:default:{password}"))
        .0
        .to_vec();
    a1.extend_from_slice(format!(":{nonce}:cnonce1").as_bytes());
    let a2 = hex(b"AUTHENTICATE:null/default");
    let response = hex(format!("{}:{nonce}:00000001:cnonce1:auth:{a2}", hex(&a1)).as_bytes());
    let reply = format!(
        "username=\"{user}\",realm=\"default\",nonce=\"{nonce}\",cnonce=\"cnonce1\",\
         nc=00000001,qop=auth,digest-uri=\"null/default\",response={response},charset=utf-8"
    );
    match mechanism.step(reply.as_bytes())? {
        SaslStep::Complete { caller, last } => {
            let a2 = hex(b":null/default");
            let rspauth =
                hex(format!("{}:{nonce}:00000001:cnonce1:auth:{a2}", hex(&a1)).as_bytes());
            assert_eq!(last, format!("rspauth={rspauth}").into_bytes());
            Ok(caller)
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_kerberos_caller_gets_a_token_that_logs_in_by_digest_md5() {
    let state = memory_state(TokenSettings::default());
    let alice = kerberos(&state, "alice@EXAMPLE.COM");
    let token = get(&alice, "alice".into(), "hive/host@EXAMPLE.COM".into()).unwrap();
    let (_, identifier) = Token::from_url_string(&token).unwrap();
    assert_eq!(
        (identifier.owner.as_str(), identifier.renewer.as_str()),
        ("alice", "hive")
    );
    assert_eq!(
        identifier.max_date - identifier.issue_date,
        7 * 86_400_000,
        "Hive's max lifetime"
    );
    let logged_in = digest_login(&state, &token).unwrap();
    assert_eq!(logged_in.user, "alice");
    assert_eq!(logged_in.method, AuthMethod::Token);
    // The token store holds it in Hive's encoding, and the key that signed it.
    let ids = all_token_identifiers(&alice).unwrap();
    assert_eq!(ids, [identifier.store_key()]);
    assert_eq!(master_keys(&alice).unwrap().len(), 1);
    let second = get(&alice, "alice".into(), "hive".into()).unwrap();
    let (_, next) = Token::from_url_string(&second).unwrap();
    assert_eq!(next.sequence_number, identifier.sequence_number + 1);
    assert_eq!(
        next.master_key_id, identifier.master_key_id,
        "one key a day"
    );
}

#[test]
fn issuing_needs_kerberos_and_the_caller_as_owner() {
    let state = memory_state(TokenSettings::default());
    let refused = |session: &Session, owner: &str| {
        message(get(session, owner.into(), "hive".into()).unwrap_err())
    };
    let prefix = "Delegation Token can be issued only with kerberos authentication. Current \
                  AuthenticationMethod: ";
    let (kind, text) = refused(&session(&state, None), "alice");
    assert_eq!(
        (kind.as_str(), text),
        ("MetaException", format!("{prefix}SIMPLE"))
    );
    let plain = session(&state, Some(caller("alice", AuthMethod::Password)));
    assert_eq!(refused(&plain, "alice").1, format!("{prefix}PLAIN"));
    let by_token = session(&state, Some(caller("alice", AuthMethod::Token)));
    assert_eq!(refused(&by_token, "alice").1, format!("{prefix}TOKEN"));
    let alice = kerberos(&state, "alice@EXAMPLE.COM");
    assert_eq!(
        refused(&alice, "bob").1,
        "User: alice@EXAMPLE.COM is not allowed to impersonate bob"
    );
    assert!(all_token_identifiers(&alice).unwrap().is_empty());
    assert!(master_keys(&alice).unwrap().is_empty(), "nothing was made");
}

#[test]
fn only_the_renewer_renews_and_the_owner_or_renewer_cancels() {
    let state = memory_state(TokenSettings::default());
    let alice = kerberos(&state, "alice@EXAMPLE.COM");
    let hive = kerberos(&state, "hive/host@EXAMPLE.COM");
    let eve = kerberos(&state, "eve@EXAMPLE.COM");
    let token = get(&alice, "alice".into(), "hive/host@EXAMPLE.COM".into()).unwrap();
    let (decoded, identifier) = Token::from_url_string(&token).unwrap();

    let (_, text) = message(renew(&alice, token.clone()).unwrap_err());
    assert!(
        text.starts_with("alice tries to renew a token (HIVE_DELEGATION_TOKEN owner=alice")
            && text.ends_with("with non-matching renewer hive"),
        "{text}"
    );
    let before = now_millis();
    let expiry = renew(&hive, token.clone()).unwrap();
    assert!((before + 86_400_000..=now_millis() + 86_400_000).contains(&expiry));
    assert!(expiry <= identifier.max_date);
    let (_, text) = message(renew(&session(&state, None), token.clone()).unwrap_err());
    assert!(text.starts_with("Delegation Token can be issued only with kerberos"));

    let forged = Token {
        password: vec![0; 20],
        ..decoded.clone()
    }
    .to_url_string();
    let (_, text) = message(renew(&hive, forged).unwrap_err());
    assert!(text.ends_with("with wrong password"), "{text}");

    let (_, text) = message(cancel(&eve, token.clone()).unwrap_err());
    assert!(
        text.starts_with("eve@EXAMPLE.COM is not authorized to cancel the token"),
        "{text}"
    );
    assert!(digest_login(&state, &token).is_ok(), "still valid");
    cancel(&hive, token.clone()).unwrap();
    let error = digest_login(&state, &token).unwrap_err();
    assert!(
        error.starts_with("token expired or does not exist: "),
        "{error}"
    );
    let (_, text) = message(renew(&hive, token.clone()).unwrap_err());
    assert!(text.starts_with("token does not exist: "), "{text}");

    let own = get(&alice, "alice".into(), String::new()).unwrap();
    let (_, text) = message(renew(&alice, own.clone()).unwrap_err());
    assert!(text.ends_with("without a renewer"), "{text}");
    cancel(&alice, own.clone()).unwrap();
    cancel(&alice, own).unwrap();
}

#[test]
fn a_token_expires_after_a_short_renew_interval() {
    let state = memory_state(TokenSettings {
        renew_interval: Duration::from_secs(1),
        ..TokenSettings::default()
    });
    let alice = kerberos(&state, "alice@EXAMPLE.COM");
    let token = get(&alice, "alice".into(), "alice".into()).unwrap();
    assert!(digest_login(&state, &token).is_ok());
    std::thread::sleep(Duration::from_millis(1_100));
    let error = digest_login(&state, &token).unwrap_err();
    assert!(error.contains("is expired, current time: "), "{error}");
    assert!(
        all_token_identifiers(&alice).unwrap().is_empty(),
        "removed when used"
    );
}

#[test]
fn renewal_stops_at_the_max_date_and_the_sweep_removes_expired_tokens() {
    let state = memory_state(TokenSettings {
        renew_interval: Duration::from_secs(10),
        max_lifetime: Duration::from_secs(15),
        key_update_interval: Duration::from_secs(5),
        gc_interval: Duration::from_secs(3_600),
    });
    let manager = state.secret_manager();
    let store = state.store();
    let hive = caller("hive@EXAMPLE.COM", AuthMethod::Kerberos);
    let t0 = now_millis();
    let first = manager
        .issue(store, Some(&hive), "hive", "hive", t0)
        .unwrap();
    let renewed = manager
        .renew(store, Some(&hive), &first, t0 + 8_000)
        .unwrap();
    assert_eq!(renewed, t0 + 15_000, "capped by the max date");
    let error = manager
        .renew(store, Some(&hive), &first, t0 + 16_000)
        .unwrap_err();
    assert!(error.contains("tried to renew an expired token"), "{error}");
    // A key older than the update interval is replaced; tokens of both keys stay valid.
    let second = manager
        .issue(store, Some(&hive), "hive", "hive", t0 + 6_000)
        .unwrap();
    let key_of = |token: &str| Token::from_url_string(token).unwrap().1.master_key_id;
    assert_ne!(key_of(&first), key_of(&second));
    for token in [&first, &second] {
        let (identifier, _) = Token::from_url_string(token).unwrap();
        let (owner, _) = manager
            .check(store, &identifier.identifier, t0 + 7_000)
            .unwrap();
        assert_eq!(owner.user, "hive");
    }
    assert_eq!(
        manager.sweep(store, t0 + 15_500),
        1,
        "the first, renewed to 15 s"
    );
    assert_eq!(
        manager.sweep(store, t0 + 16_500),
        1,
        "the second, issued at 6 s"
    );
    assert!(store.token_identifiers().unwrap().is_empty());
}

#[test]
fn garbage_token_strings_get_a_clear_error() {
    let state = memory_state(TokenSettings::default());
    let hive = kerberos(&state, "hive@EXAMPLE.COM");
    let long = "A".repeat(100_000);
    for garbage in ["", "not base64!", "AAAA", "_____w", long.as_str()] {
        let (kind, text) = message(renew(&hive, garbage.into()).unwrap_err());
        assert_eq!(kind, "MetaException");
        assert!(
            text.starts_with("not a delegation token string: "),
            "{text}"
        );
        let (_, text) = message(cancel(&hive, garbage.into()).unwrap_err());
        assert!(
            text.starts_with("not a delegation token string: "),
            "{text}"
        );
    }
    for user in ["!!", "AAAA"] {
        let mut mechanism = DigestMd5::for_tokens(Arc::clone(&state), &[Qop::Auth]).unwrap();
        let Ok(SaslStep::Challenge(challenge)) = mechanism.step(b"") else {
            panic!("no challenge");
        };
        let challenge = String::from_utf8(challenge).unwrap();
        let nonce = challenge.split('"').nth(3).unwrap();
        let response = format!(
            "username=\"{user}\",realm=\"default\",nonce=\"{nonce}\",nc=00000001,\
             cnonce=\"c\",digest-uri=\"a/b\",response=0"
        );
        let error = mechanism.step(response.as_bytes()).unwrap_err();
        assert!(error.contains("not a"), "{user}: {error}");
    }
}

#[test]
fn the_raw_token_store_answers_as_hives_object_store_does() {
    let state = memory_state(TokenSettings::default());
    let hs2 = kerberos(&state, "hive/hs2@EXAMPLE.COM");
    assert!(add_token(&hs2, "id".into(), "t".into()).unwrap());
    assert!(!add_token(&hs2, "id".into(), "u".into()).unwrap());
    assert_eq!(get_token(&hs2, "id".into()).unwrap(), "t");
    assert_eq!(get_token(&hs2, "none".into()).unwrap(), "");
    assert!(remove_token(&hs2, "id".into()).unwrap());
    assert!(!remove_token(&hs2, "id".into()).unwrap());
    assert_eq!(add_master_key(&hs2, "k1".into()).unwrap(), 1);
    update_master_key(&hs2, 1, "k1'".into()).unwrap();
    assert_eq!(
        message(update_master_key(&hs2, 9, "k".into()).unwrap_err()),
        (
            "NoSuchObjectException".to_string(),
            "No key found with keyId: 9".to_string()
        )
    );
    assert_eq!(master_keys(&hs2).unwrap(), ["k1'"]);
    assert!(remove_master_key(&hs2, 1).unwrap());
    assert_eq!(add_master_key(&hs2, "k2".into()).unwrap(), 2);

    let by_token = session(&state, Some(caller("alice", AuthMethod::Token)));
    let (kind, text) = message(master_keys(&by_token).unwrap_err());
    assert_eq!(kind, "undeclared");
    assert!(text.contains("may not use the token store"), "{text}");
    let (kind, _) = message(add_master_key(&by_token, "k".into()).unwrap_err());
    assert_eq!(kind, "MetaException");
}

#[test]
fn tokens_and_keys_survive_a_restart() {
    let dir = tempfile::tempdir().unwrap();
    let open = || {
        let options = engine::StoreOptions::new("/warehouse").metadata_only();
        with_tokens(
            engine::Store::open(dir.path(), options).unwrap(),
            TokenSettings::default(),
        )
    };
    let state = open();
    let alice = kerberos(&state, "alice@EXAMPLE.COM");
    let token = get(&alice, "alice".into(), "alice".into()).unwrap();
    let sequence = Token::from_url_string(&token).unwrap().1.sequence_number;
    drop(alice);
    drop(state);

    let state = open();
    assert_eq!(digest_login(&state, &token).unwrap().user, "alice");
    let alice = kerberos(&state, "alice@EXAMPLE.COM");
    renew(&alice, token.clone()).unwrap();
    let next = get(&alice, "alice".into(), "alice".into()).unwrap();
    let next = Token::from_url_string(&next).unwrap().1;
    assert_eq!(
        next.sequence_number,
        sequence + 1,
        "numbers go on after a restart"
    );
    assert_eq!(
        master_keys(&alice).unwrap().len(),
        2,
        "a new key after a restart"
    );
}
