use super::*;
use crate::store::{memory_store_with_databases, Store, StoreOptions};

#[test]
fn a_token_is_added_once_read_listed_and_removed() {
    let store = memory_store_with_databases(&[]);
    assert!(store.add_token("id-b", "token b").unwrap());
    assert!(store.add_token("id-a", "token a").unwrap());
    assert!(
        !store.add_token("id-a", "another").unwrap(),
        "an existing id is kept"
    );
    assert_eq!(store.token("id-a").unwrap().as_deref(), Some("token a"));
    assert_eq!(store.token("id-c").unwrap(), None);
    assert_eq!(store.token_identifiers().unwrap(), ["id-a", "id-b"]);
    store.replace_token("id-a", "renewed").unwrap();
    assert_eq!(store.token("id-a").unwrap().as_deref(), Some("renewed"));
    assert!(store.remove_token("id-a").unwrap());
    assert!(!store.remove_token("id-a").unwrap());
    assert_eq!(
        store.tokens().unwrap(),
        [("id-b".to_string(), "token b".to_string())]
    );
}

#[test]
fn master_key_ids_increase_and_are_never_given_out_again() {
    let store = memory_store_with_databases(&[]);
    assert_eq!(store.add_master_key("k1").unwrap(), 1);
    assert_eq!(store.add_master_key("k2").unwrap(), 2);
    assert!(store.remove_master_key(2).unwrap());
    assert!(!store.remove_master_key(2).unwrap());
    assert_eq!(store.add_master_key("k3").unwrap(), 3, "2 is not reused");
    store.update_master_key(1, "k1 updated").unwrap();
    assert_eq!(
        store.master_keys().unwrap(),
        [(1, "k1 updated".to_string()), (3, "k3".to_string())]
    );
    assert_eq!(store.master_key(3).unwrap().as_deref(), Some("k3"));
    assert_eq!(store.master_key(-1).unwrap(), None);
}

#[test]
fn updating_an_unknown_master_key_is_no_such_object_with_hives_message() {
    let store = memory_store_with_databases(&[]);
    for id in [7, 0, -3] {
        match store.update_master_key(id, "k") {
            Err(Error::NoSuchObject(message)) => {
                assert_eq!(message, format!("No key found with keyId: {id}"))
            }
            other => panic!("{other:?}"),
        }
    }
    assert!(store.master_keys().unwrap().is_empty());
}

#[test]
fn oversized_values_are_refused_and_change_nothing() {
    let store = memory_store_with_databases(&[]);
    let long_id = "i".repeat(TOKEN_IDENTIFIER_BYTES_MAX + 1);
    assert!(matches!(
        store.add_token(&long_id, "t"),
        Err(Error::Refused(_))
    ));
    let long_token = "t".repeat(TOKEN_BYTES_MAX + 1);
    assert!(matches!(
        store.add_token("id", &long_token),
        Err(Error::Refused(_))
    ));
    let long_key = "k".repeat(MASTER_KEY_BYTES_MAX + 1);
    assert!(matches!(
        store.add_master_key(&long_key),
        Err(Error::Refused(_))
    ));
    assert!(store.token_identifiers().unwrap().is_empty());
    assert!(store.master_keys().unwrap().is_empty());
    assert_eq!(store.add_master_key("k").unwrap(), 1);
}

#[test]
fn tokens_keys_and_the_key_counter_survive_a_restart() {
    let dir = tempfile::tempdir().unwrap();
    let options = || StoreOptions::new("/warehouse").metadata_only();
    {
        let store = Store::open(dir.path(), options()).unwrap();
        assert!(store.add_token("id", "token").unwrap());
        assert_eq!(store.add_master_key("k1").unwrap(), 1);
        assert_eq!(store.add_master_key("k2").unwrap(), 2);
        assert!(store.remove_master_key(2).unwrap());
    }
    let store = Store::open(dir.path(), options()).unwrap();
    assert_eq!(store.token("id").unwrap().as_deref(), Some("token"));
    assert_eq!(store.master_keys().unwrap(), [(1, "k1".to_string())]);
    assert_eq!(store.add_master_key("k3").unwrap(), 3);
}
