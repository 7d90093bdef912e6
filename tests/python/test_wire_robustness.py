"""Raw-socket robustness: idle connections and malformed input.

Goal: a client that holds a connection without a word, or sends bytes that are not a valid
Thrift message, costs the server that one connection at most: others keep being served and
the process stays up.

Method: hand-built bytes on plain sockets. For each bad input: an active client connection
opened before it, a raw connection that sends it, then (within a bound) the raw connection
must be closed by the server or get an error answer; the active connection and a brand-new
one must still be served.
"""

import socket
import struct
import time

import pytest
from fb303 import FacebookService
from fb303.ttypes import fb_status
from thrift.Thrift import TType
from thrift.protocol import TBinaryProtocol
from thrift.transport import TSocket, TTransport

from hms_helpers import (
    SOCKET_TIMEOUT_S,
    UNIMPLEMENTED_METHOD,
    binary_call,
    binary_string,
    compact_call,
    frame,
    looks_like_error_answer,
    open_client,
    read_reply_or_close,
    varint,
)

IDLE_CONNECTION_COUNT = 100
# Deep enough to overflow a naive recursive skip, small enough for any sane frame limit.
NESTING_DEPTH = 100_000


def connect_raw(server) -> socket.socket:
    sock = socket.create_connection((server.host, server.port), timeout=SOCKET_TIMEOUT_S)
    sock.settimeout(SOCKET_TIMEOUT_S)
    return sock


def fb303_over(sock: socket.socket, framed: bool) -> FacebookService.Client:
    """A generated fb303 client speaking strict binary over an already connected socket."""
    tsocket = TSocket.TSocket()
    tsocket.handle = sock
    trans = TTransport.TFramedTransport(tsocket) if framed else TTransport.TBufferedTransport(tsocket)
    return FacebookService.Client(TBinaryProtocol.TBinaryProtocol(trans))


# ---------------------------------------------------------------- bodies of bad messages

def binary_field(ttype: int, field_id: int) -> bytes:
    return struct.pack(">bh", ttype, field_id)


def binary_set_ugi_with_list_size(size: int) -> bytes:
    """set_ugi args: user_name "alice", group_names a list<string> claiming `size` elements."""
    return (binary_field(TType.STRING, 1) + binary_string(b"alice") + binary_field(TType.LIST, 2)
            + struct.pack(">bi", TType.STRING, size) + b"\x00")


def binary_set_ugi_with_string_length(length: int) -> bytes:
    return binary_field(TType.STRING, 1) + struct.pack(">i", length) + b"alice\x00"


def compact_set_ugi_with_string_length(length: int) -> bytes:
    return bytes([0x18]) + varint(length) + b"alice\x00"  # field 1, compact type 8 (binary)


def compact_set_ugi_with_list_size(size_varint: bytes) -> bytes:
    # field 1 string "alice"; field 2 (delta 1), compact type 9 (list); long-form list header
    # 0xF8 = size follows as varint, element type 8 (binary)
    return bytes([0x18]) + varint(5) + b"alice" + bytes([0x19, 0xF8]) + size_varint + b"\x00"


def binary_deep_struct_args(depth: int) -> bytes:
    """An args struct whose field 1 is a struct whose field 1 is a struct ... `depth` deep."""
    return binary_field(TType.STRUCT, 1) * depth + b"\x00" * (depth + 1)


SASL_PLAIN_START = b"\x01" + struct.pack(">i", 5) + b"PLAIN"
SASL_PLAIN_RESPONSE = b"\x02" + struct.pack(">i", 12) + b"\x00alice\x00secret"
HTTP_POST = (b"POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/x-thrift\r\n"
             b"Content-Length: 12\r\n\r\n") + binary_call("getStatus")[:12]
HTTP_GET = b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: */*\r\n\r\n"
GARBAGE = bytes((i * 167 + 0xD5) & 0xFF for i in range(256))  # fixed, starts 0xD5 0x7C ...

THRIFT_ERROR = "thrift-error"
HTTP_ERROR = "http-error"
SASL_ERROR = "sasl-error"
ANY_REPLY = "any-reply"

# (id, bytes to send, half-close after sending?, acceptable kind of answer besides closing)
BAD_INPUTS = [
    ("truncated-frame", frame(binary_call("getStatus"))[:11], True, THRIFT_ERROR),
    ("truncated-frame-header", b"\x00\x00", True, THRIFT_ERROR),
    ("truncated-buffered-message", binary_call("getStatus")[:9], True, THRIFT_ERROR),
    ("negative-frame-size", struct.pack(">i", -16) + binary_call("getStatus"), False, THRIFT_ERROR),
    ("huge-frame-size", struct.pack(">i", 0x7FFFFFFF) + binary_call("getStatus"), False,
     THRIFT_ERROR),
    ("huge-string-length-in-frame",
     frame(binary_call("set_ugi", binary_set_ugi_with_string_length(0x7FFFFFF0))), False,
     THRIFT_ERROR),
    ("huge-string-length-buffered",
     binary_call("set_ugi", binary_set_ugi_with_string_length(0x7FFFFFF0)), False, THRIFT_ERROR),
    ("negative-string-length-in-frame",
     frame(binary_call("set_ugi", binary_set_ugi_with_string_length(-2))), False, THRIFT_ERROR),
    ("huge-method-name-length", struct.pack(">Ii", 0x80010001, 0x7FFFFFF0) + b"get", False,
     THRIFT_ERROR),
    ("negative-list-size-in-frame",
     frame(binary_call("set_ugi", binary_set_ugi_with_list_size(-1))), False, THRIFT_ERROR),
    ("negative-list-size-buffered",
     binary_call("set_ugi", binary_set_ugi_with_list_size(-5)), False, THRIFT_ERROR),
    ("huge-list-size-buffered",
     binary_call("set_ugi", binary_set_ugi_with_list_size(0x7FFFFFFF)), False, THRIFT_ERROR),
    ("compact-huge-string-length-in-frame",
     frame(compact_call("set_ugi", compact_set_ugi_with_string_length(0x7FFFFFF0))), False,
     THRIFT_ERROR),
    ("compact-huge-string-length-buffered",
     compact_call("set_ugi", compact_set_ugi_with_string_length(0x7FFFFFF0)), False,
     THRIFT_ERROR),
    ("compact-negative-list-size",
     compact_call("set_ugi", compact_set_ugi_with_list_size(varint(0xFFFFFFFF))), False,
     THRIFT_ERROR),
    ("compact-huge-list-size",
     compact_call("set_ugi", compact_set_ugi_with_list_size(varint(0x7FFFFFFF))), False,
     THRIFT_ERROR),
    ("compact-overlong-varint", bytes([0x82, 0x21]) + b"\xff" * 16, False, THRIFT_ERROR),
    ("bad-binary-version", struct.pack(">I", 0x80020001) + binary_call("getStatus")[4:], False,
     THRIFT_ERROR),
    # Apache's HMS ignores the message type and answers this like a call: allowed.
    ("reply-sent-to-server", struct.pack(">I", 0x80010002) + binary_call("getStatus")[4:], False,
     ANY_REPLY),
    ("deep-nesting-buffered-known-method",
     binary_call("getStatus", binary_deep_struct_args(NESTING_DEPTH)), False, ANY_REPLY),
    ("deep-nesting-buffered-unknown-method",
     binary_call(UNIMPLEMENTED_METHOD, binary_deep_struct_args(NESTING_DEPTH)), False, ANY_REPLY),
    ("deep-nesting-framed-unknown-method",
     frame(binary_call(UNIMPLEMENTED_METHOD, binary_deep_struct_args(NESTING_DEPTH))), False,
     ANY_REPLY),
    ("garbage", GARBAGE, False, THRIFT_ERROR),
    ("http-post", HTTP_POST, False, HTTP_ERROR),
    ("http-get", HTTP_GET, False, HTTP_ERROR),
    ("sasl-plain-start", SASL_PLAIN_START + SASL_PLAIN_RESPONSE, False, SASL_ERROR),
]


def acceptable_answer(kind: str, data: bytes) -> bool:
    if kind == ANY_REPLY:
        return True
    if kind == HTTP_ERROR and data.startswith(b"HTTP/1."):
        return True
    if kind == SASL_ERROR and data[:1] in (b"\x03", b"\x04"):  # SASL status BAD or ERROR
        return True
    return looks_like_error_answer(data)


@pytest.fixture
def active_client(server):
    """A connection opened before the bad input; it must be served afterwards too."""
    client, trans = open_client(server)
    assert client.getStatus() == fb_status.ALIVE
    yield client
    trans.close()


@pytest.mark.parametrize("payload,half_close,kind", [case[1:] for case in BAD_INPUTS],
                         ids=[case[0] for case in BAD_INPUTS])
def test_bad_input_closes_only_its_connection(server, active_client, payload, half_close, kind):
    with connect_raw(server) as sock:
        try:
            sock.sendall(payload)
            if half_close:
                sock.shutdown(socket.SHUT_WR)
        except (BrokenPipeError, ConnectionResetError):
            pass  # closed by the server before we finished writing: allowed
        answer = read_reply_or_close(sock)
    assert answer == b"" or acceptable_answer(kind, answer), (
        f"sent {payload[:48]!r}... ({len(payload)} bytes); expected close or {kind}, "
        f"got {answer[:96]!r}")
    assert active_client.getStatus() == fb_status.ALIVE
    server.assert_alive()


def test_bad_input_after_a_good_call_closes_only_its_connection(server, active_client):
    """A connection that was fine, then sends garbage mid-stream."""
    with connect_raw(server) as sock:
        client = fb303_over(sock, framed=False)
        assert client.getStatus() == fb_status.ALIVE
        sock.sendall(GARBAGE)
        answer = read_reply_or_close(sock)
        assert answer == b"" or looks_like_error_answer(answer), f"got {answer[:96]!r}"
    assert active_client.getStatus() == fb_status.ALIVE
    server.assert_alive()


def hold_connections(server, count: int, first_bytes: bytes):
    sockets = []
    try:
        for _ in range(count):
            sock = connect_raw(server)
            sockets.append(sock)
            if first_bytes:
                sock.sendall(first_bytes)
    except Exception:
        for sock in sockets:
            sock.close()
        raise
    return sockets


@pytest.mark.parametrize("first_bytes", [b"", frame(binary_call("getStatus"))[:6]],
                         ids=["silent", "half-a-frame"])
def test_many_idle_connections_do_not_block_an_active_one(server, first_bytes):
    """100 connections that connect (and maybe start a frame) then say nothing; one more
    connection must still be served, and then so must each silent one in turn."""
    idle = hold_connections(server, IDLE_CONNECTION_COUNT, first_bytes)
    try:
        combo = ("framed", "compact") if server.supports("framed", "compact") else ("buffered", "binary")
        client, trans = open_client(server, *combo)
        try:
            assert client.getStatus() == fb_status.ALIVE
            assert client.getName()
        finally:
            trans.close()
        if not first_bytes:
            can_frame = server.supports("framed", "binary")
            for index, sock in enumerate(idle):
                status = fb303_over(sock, framed=can_frame and index % 2 == 0).getStatus()
                assert status == fb_status.ALIVE, f"idle connection {index}"
    finally:
        for sock in idle:
            sock.close()
    server.assert_alive()


# ---------------------------------------------------------------- floods, deadlines, budget
# Each test below starts a hivestore of its own with a small cap and short deadlines, so that
# what would take the defaults minutes takes seconds.

FLOOD_SOCKETS = 300
FLOOD_CAP = 50
FLOOD_PROBES = 24


@pytest.fixture
def own_server(tmp_path):
    """Starts a hivestore with the given `serve` flags; stopped (exit 0) after the test."""
    import os

    from conftest import hivestore_binary, start_hivestore, stop_hivestore

    if os.environ.get("HMS_URI"):
        pytest.skip("starts a hivestore of its own with its own limits")
    started = []

    def start(*flags):
        started.append(start_hivestore(hivestore_binary(), tmp_path, [str(flag) for flag in flags]))
        return started[-1]

    yield start
    for running in started:
        stop_hivestore(running)


def counters_of(server) -> dict:
    client, trans = open_client(server)
    try:
        return client.getCounters()
    finally:
        trans.close()


def closed_within(sock: socket.socket, deadline_s: float) -> bool:
    """Whether the server closes `sock` within `deadline_s` (sending nothing)."""
    try:
        return read_reply_or_close(sock, deadline_s) == b""
    except TimeoutError:
        return False


def test_a_flood_of_idle_and_slow_sockets_never_keeps_a_client_out(own_server):
    """300 sockets at a cap of 50, half silent and half stuck in the middle of a message, with
    deadlines far away: each of 24 clients that come after is served, because the connection
    that waited longest makes room."""
    server = own_server("--max-connections", FLOOD_CAP, "--idle-timeout-secs", 600,
                        "--message-timeout-secs", 600)
    half_a_frame = frame(binary_call("getStatus"))[:6]
    flood = []
    try:
        for index in range(FLOOD_SOCKETS):
            sock = connect_raw(server)
            flood.append(sock)
            if index % 2:
                sock.sendall(half_a_frame)
        served = 0
        for _ in range(FLOOD_PROBES):
            client, trans = open_client(server)
            try:
                served += client.getStatus() == fb_status.ALIVE
            finally:
                trans.close()
        assert served == FLOOD_PROBES
    finally:
        for sock in flood:
            sock.close()
    counters = counters_of(server)
    assert counters.get("connections.evicted", 0) >= FLOOD_SOCKETS - FLOOD_CAP
    server.assert_alive()


def test_silent_and_slow_connections_are_closed_at_their_deadlines(own_server):
    server = own_server("--idle-timeout-secs", 1, "--message-timeout-secs", 2)
    message = frame(binary_call("getStatus"))
    with connect_raw(server) as silent, connect_raw(server) as slow:
        slow.sendall(message[:1])
        assert closed_within(silent, 5.0), "a silent connection outlived the idle timeout"
        # A byte every 0.3 s keeps the idle deadline away, never the message deadline.
        cut_off = False
        for index in range(1, min(len(message), 20)):
            time.sleep(0.3)
            try:
                slow.sendall(message[index:index + 1])
            except (BrokenPipeError, ConnectionResetError):
                cut_off = True
                break
        assert cut_off or closed_within(slow, 5.0), "a slow message outlived its deadline"
    assert counters_of(server).get("connections.timed_out", 0) >= 2
    server.assert_alive()


def test_unfinished_messages_past_the_inflight_budget_are_refused_and_others_served(own_server):
    """Three connections each send most of a 1 MiB message and hold it, under a 2 MiB budget:
    one or two of them are refused (closed), never all, while small calls go on being
    served."""
    server = own_server("--max-message-bytes", 1 << 20, "--max-inflight-bytes", 2 << 20)
    unfinished = struct.pack(">i", 1_000_000) + bytes(900_000)
    holders = [connect_raw(server) for _ in range(3)]
    try:
        for sock in holders:
            try:
                sock.sendall(unfinished)
            except (socket.timeout, BrokenPipeError, ConnectionResetError):
                pass  # refused while still sending
        closed = [False] * len(holders)
        deadline = time.monotonic() + 10
        while not any(closed) and time.monotonic() < deadline:
            closed = [closed or closed_within(sock, 0.2) for sock, closed in zip(holders, closed)]
        # Those still waiting for budget give up within a second more.
        time.sleep(2)
        closed = [closed or closed_within(sock, 0.2) for sock, closed in zip(holders, closed)]
        # Two may hold half a request each when the third asks: then two wait and are refused.
        assert 1 <= closed.count(True) <= 2, f"closed: {closed}"
        client, trans = open_client(server)
        try:
            assert client.getStatus() == fb_status.ALIVE
            refused = client.getCounters().get("requests.over_inflight_budget", 0)
            assert refused == closed.count(True)
        finally:
            trans.close()
    finally:
        for sock in holders:
            sock.close()
    server.assert_alive()

