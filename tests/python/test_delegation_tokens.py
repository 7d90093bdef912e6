"""Delegation tokens through the pyiceberg-vendored Hive 4 client, without Kerberos: the
refusals Hive's metastore answers a caller that did not authenticate by Kerberos, and Hive's
raw token store (`DBTokenStore` over `ObjectStore`) that a HiveServer2 keeps its tokens in.

A token cannot be obtained here (it needs a Kerberos caller); issuing, renewal and DIGEST-MD5
logins are tested in Rust (frontends/thrift/src/calls/delegation_token_tests.rs).
"""

import pytest
from hive_metastore.ttypes import MetaException, NoSuchObjectException

from conftest import hivestore_binary, start_hivestore, stop_hivestore
from hms_helpers import call_or_skip_on_reference, connected, raises_hms, unique_name

NOT_KERBEROS = ("Delegation Token can be issued only with kerberos authentication. "
                "Current AuthenticationMethod: SIMPLE")


def test_tokens_are_issued_and_renewed_only_over_kerberos(client, server):
    if server.external:
        pytest.skip("Hive's answer without SASL depends on its token manager's setup")
    with raises_hms(MetaException, NOT_KERBEROS):
        client.get_delegation_token("alice", "hive")
    with raises_hms(MetaException, NOT_KERBEROS):
        client.renew_delegation_token("AAAA")
    with raises_hms(MetaException, "not a delegation token string: "):
        client.cancel_delegation_token("not base64!")


def test_the_raw_token_store_answers_as_hives_object_store(client, server):
    identifier = unique_name("token_id")
    assert call_or_skip_on_reference(server, client.add_token, identifier, "first") is True
    assert client.add_token(identifier, "second") is False
    assert client.get_token(identifier) == "first"
    assert client.get_token(unique_name("none")) == ""
    assert identifier in client.get_all_token_identifiers()
    assert client.remove_token(identifier) is True
    assert client.remove_token(identifier) is False

    first = client.add_master_key("key one")
    second = client.add_master_key("key two")
    assert second > first > 0
    client.update_master_key(first, "key one, updated")
    keys = client.get_master_keys()
    assert "key one, updated" in keys and "key two" in keys
    with raises_hms(NoSuchObjectException, "No key found with keyId: 2147483647"):
        client.update_master_key(2147483647, "k")
    assert client.remove_master_key(second) is True
    assert client.remove_master_key(second) is False
    assert client.add_master_key("key three") > second, "ids are never given again"


def test_tokens_and_master_keys_survive_a_restart(tmp_path, server):
    if server.external:
        pytest.skip("restarts a hivestore of its own")
    first = start_hivestore(hivestore_binary(), tmp_path)
    try:
        with connected(first) as client:
            assert client.add_token("kept", "token") is True
            key_id = client.add_master_key("kept key")
    finally:
        stop_hivestore(first)
    again = start_hivestore(hivestore_binary(), tmp_path)
    try:
        with connected(again) as client:
            assert client.get_token("kept") == "token"
            assert client.get_master_keys() == ["kept key"]
            assert client.add_master_key("next") == key_id + 1
    finally:
        stop_hivestore(again)
