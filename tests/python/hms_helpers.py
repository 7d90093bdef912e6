"""Shared helpers for the wire-level tests: the server handle, client stacks, raw Thrift bytes.

Everything here is bounded: every socket has a timeout, every wait loop a deadline.
"""

import inspect
import os
import socket
import struct
import subprocess
import time
from dataclasses import dataclass
from typing import Optional

from thrift.Thrift import TApplicationException, TMessageType, TType
from thrift.protocol import TBinaryProtocol, TCompactProtocol
from thrift.transport import TSocket, TTransport

# The method used to probe "not implemented": the server must answer it with a
# TApplicationException of type UNKNOWN_METHOD that names it. Chosen because hivestore is
# unlikely to implement workload management soon, and because the Java reference HMS 2.3
# predates it (so it answers UNKNOWN_METHOD there too). Change it here and only here: the
# Java client test receives it on its command line.
UNIMPLEMENTED_METHOD = "get_active_resource_plan"

# The name hivestore reports through fb303 getName.
HIVESTORE_NAME = "hivestore"

# Every socket in these tests gives up after this long.
SOCKET_TIMEOUT_S = 10.0

# (transport, protocol) pairs. "binary-nonstrict" is TBinaryProtocol with strictWrite=False:
# the message header is the method name's length, not the 0x8001 version word.
TRANSPORTS = ("buffered", "framed")
PROTOCOLS = ("binary", "compact", "binary-nonstrict")
ALL_COMBOS = [(t, p) for t in TRANSPORTS for p in PROTOCOLS]


@dataclass
class Server:
    """A metastore under test: the fixture's own hivestore process, or an external HMS."""

    host: str
    port: int
    process: Optional[subprocess.Popen] = None
    log_path: Optional[str] = None
    # Wall-clock time (seconds since the epoch) just before the process was started.
    started_s: Optional[float] = None
    # Which (transport, protocol) pairs this server speaks; None means all of them.
    combos: Optional[set] = None

    @property
    def external(self) -> bool:
        return self.process is None

    @property
    def uri(self) -> str:
        return f"thrift://{self.host}:{self.port}"

    def supports(self, transport: str, protocol: str) -> bool:
        return self.combos is None or (transport, protocol) in self.combos

    def log_tail(self, chars: int = 4000) -> str:
        if not self.log_path or not os.path.exists(self.log_path):
            return ""
        with open(self.log_path, "rb") as handle:
            handle.seek(0, os.SEEK_END)
            size = handle.tell()
            handle.seek(max(0, size - chars))
            return handle.read().decode("utf-8", "replace")

    def assert_alive(self) -> None:
        """The process has not exited (own server) and a fresh connection is served."""
        if self.process is not None:
            code = self.process.poll()
            assert code is None, f"hivestore exited with {code}; log tail:\n{self.log_tail()}"
        assert_serves(self)


def open_client(server: Server, transport: str = "buffered", protocol: str = "binary"):
    """Connect pyiceberg's generated ThriftHiveMetastore client; returns (client, transport)."""
    from hive_metastore import ThriftHiveMetastore

    trans, proto = make_stack(server.host, server.port, transport, protocol)
    trans.open()
    return ThriftHiveMetastore.Client(proto), trans


def make_stack(host: str, port: int, transport: str, protocol: str):
    """Build (transport, protocol) objects of the thrift library, not yet opened."""
    sock = TSocket.TSocket(host, port)
    sock.setTimeout(int(SOCKET_TIMEOUT_S * 1000))
    if transport == "buffered":
        trans = TTransport.TBufferedTransport(sock)
    elif transport == "framed":
        trans = TTransport.TFramedTransport(sock)
    else:
        raise ValueError(f"unknown transport {transport!r}")
    if protocol == "binary":
        proto = TBinaryProtocol.TBinaryProtocol(trans, strictRead=True, strictWrite=True)
    elif protocol == "binary-nonstrict":
        proto = TBinaryProtocol.TBinaryProtocol(trans, strictRead=False, strictWrite=False)
    elif protocol == "compact":
        proto = TCompactProtocol.TCompactProtocol(trans)
    else:
        raise ValueError(f"unknown protocol {protocol!r}")
    return trans, proto


def assert_serves(server: Server) -> None:
    """A brand-new buffered binary connection gets an fb303 getStatus answered ALIVE."""
    from fb303.ttypes import fb_status

    client, trans = open_client(server)
    try:
        assert client.getStatus() == fb_status.ALIVE
    finally:
        trans.close()


def default_args(method: str = UNIMPLEMENTED_METHOD):
    """A well-formed argument struct for `method`, from the Hive 4 IDL pyiceberg vendors:
    every argument present with a default value (an empty struct, "", 0, an empty list)."""
    from hive_metastore import ThriftHiveMetastore

    args_class = getattr(ThriftHiveMetastore, f"{method}_args")
    values = {}
    for spec in filter(None, args_class.thrift_spec):
        _, ttype, name, type_args = spec[:4]
        values[name] = default_value(ttype, type_args)
    return args_class(**values)


def default_value(ttype: int, type_args):
    if ttype == TType.STRUCT:
        return type_args[0]()
    defaults = {TType.STRING: "", TType.BOOL: False, TType.DOUBLE: 0.0, TType.LIST: [],
                TType.SET: set(), TType.MAP: {}}
    return defaults.get(ttype, 0)


def args_shape(method: str = UNIMPLEMENTED_METHOD) -> str:
    """`method`'s arguments as "ID:TTYPE,..." for the Java client, which lacks the newer IDL."""
    from hive_metastore import ThriftHiveMetastore

    args_class = getattr(ThriftHiveMetastore, f"{method}_args")
    return ",".join(f"{spec[0]}:{spec[1]}" for spec in filter(None, args_class.thrift_spec))


def call_unimplemented(client, method: str = UNIMPLEMENTED_METHOD, omit_arguments=False):
    """Call `method` and return the TApplicationException it raised (fails if none).

    Uses the client's own generated method when it has one, else writes the call on the
    client's protocol with the argument struct of pyiceberg's generated code and reads the
    reply the way generated code does. Arguments are well formed (every one present) unless
    `omit_arguments`, which sends an empty argument struct: what a Java client sends for null.
    """
    args = default_args(method)
    generated = getattr(client, method, None)
    try:
        if omit_arguments:
            raw_call(client._iprot, client._oprot, method, args=None)
        elif generated is not None:
            names = inspect.signature(generated).parameters
            generated(*(getattr(args, name) for name in names))
        else:
            raw_call(client._iprot, client._oprot, method, args=args)
    except TApplicationException as error:
        return error
    raise AssertionError(f"{method} answered normally; expected TApplicationException")


def raw_call(iprot, oprot, method: str, args=None, seqid: int = 0x5EED):
    """Send `method` over an existing protocol with `args` (None: an empty struct); raise
    the TApplicationException that comes back, or skip the result and return the name."""
    oprot.writeMessageBegin(method, TMessageType.CALL, seqid)
    if args is None:
        oprot.writeStructBegin("args")
        oprot.writeFieldStop()
        oprot.writeStructEnd()
    else:
        args.write(oprot)
    oprot.writeMessageEnd()
    oprot.trans.flush()
    name, mtype, _ = iprot.readMessageBegin()
    if mtype == TMessageType.EXCEPTION:
        error = TApplicationException()
        error.read(iprot)
        iprot.readMessageEnd()
        raise error
    iprot.skip(TType.STRUCT)
    iprot.readMessageEnd()
    return name


def assert_unknown_method(error: TApplicationException, method: str = UNIMPLEMENTED_METHOD):
    assert error.type == TApplicationException.UNKNOWN_METHOD, (
        f"expected type UNKNOWN_METHOD (1), got {error.type}: {error.message!r}")
    assert method in (error.message or ""), (
        f"message {error.message!r} does not name the method {method!r}")


# ------------------------------------------------------------------ raw Thrift bytes
# Hand-built messages for tests that must send what no well-behaved client sends.


def binary_string(text: bytes) -> bytes:
    return struct.pack(">i", len(text)) + text


def binary_call(method: str, body: bytes = b"\x00", seqid: int = 1) -> bytes:
    """A strict binary-protocol CALL: version word, name, seqid, then the args struct."""
    header = struct.pack(">I", 0x80010000 | TMessageType.CALL) + binary_string(method.encode())
    return header + struct.pack(">i", seqid) + body


def compact_call(method: str, body: bytes = b"\x00", seqid: int = 1) -> bytes:
    """A compact-protocol CALL (protocol id 0x82, version 1, type CALL in the top bits)."""
    name = method.encode()
    return (bytes([0x82, (TMessageType.CALL << 5) | 1]) + varint(seqid) + varint(len(name)) + name + body)


def varint(value: int) -> bytes:
    out = bytearray()
    for _ in range(10):
        byte = value & 0x7F
        value >>= 7
        if value:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)
    raise ValueError("value does not fit a varint64")


def frame(payload: bytes) -> bytes:
    return struct.pack(">i", len(payload)) + payload


def read_reply_or_close(sock: socket.socket, deadline_s: float = SOCKET_TIMEOUT_S) -> bytes:
    """Read until the peer closes or `deadline_s` passes; returns what arrived.

    Raises TimeoutError if the connection is still open, silent, at the deadline; a reset
    counts as closed.
    """
    received = bytearray()
    deadline = time.monotonic() + deadline_s
    sock.settimeout(0.5)
    for _ in range(int(deadline_s / 0.5) + 2):
        if time.monotonic() > deadline:
            break
        try:
            chunk = sock.recv(65536)
        except socket.timeout:
            if received:
                return bytes(received)  # an answer arrived and the server went quiet
            continue
        except (ConnectionResetError, BrokenPipeError):
            return bytes(received)
        if not chunk:
            return bytes(received)
        received.extend(chunk)
        if len(received) > 1 << 20:
            raise AssertionError("server sent more than 1 MiB in answer to a bad message")
    raise TimeoutError(
        f"connection neither closed nor answered within {deadline_s}s "
        f"(got {len(received)} bytes: {bytes(received[:64])!r})")


def looks_like_error_answer(data: bytes) -> bool:
    """True if `data` starts with a Thrift EXCEPTION message (binary or compact, framed or not)."""
    candidates = [data]
    if len(data) >= 4:
        candidates.append(data[4:])
    for body in candidates:
        if len(body) >= 4 and struct.unpack(">I", body[:4])[0] == 0x80010003:
            return True
        if len(body) >= 2 and body[0] == 0x82 and (body[1] >> 5) == 3:
            return True
        if len(body) >= 4:
            # non-strict binary: name length, name, then type byte 3
            length = struct.unpack(">i", body[:4])[0]
            if 0 <= length < 256 and len(body) > 4 + length and body[4 + length] == 3:
                return True
    return False
