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
# TApplicationException of type UNKNOWN_METHOD that names it. hivestore implements every
# method of Hive 4's API; what it leaves out is Hive 2's index API, which Hive 3 dropped (so
# pyiceberg's generated code lacks it: its arguments are spelled out in UNVENDORED_ARGUMENTS).
# Change it here and only here: the Java client test receives it on its command line.
UNIMPLEMENTED_METHOD = "get_index_names"

# Arguments (id, thrift type, name) of probed methods pyiceberg's Hive 4 IDL lacks.
UNVENDORED_ARGUMENTS = {
    "get_index_names": [(1, TType.STRING, "db_name", None, None),
                        (2, TType.STRING, "tbl_name", None, None),
                        (3, TType.I16, "max_indexes", None, -1)],
}

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


def open_client(server: Server, transport: str = "buffered", protocol: str = "binary", sock=None):
    """Connect pyiceberg's generated ThriftHiveMetastore client; returns (client, transport).
    `sock`: a thrift socket to use (a TSSLSocket, say) instead of a plain one to the server."""
    from hive_metastore import ThriftHiveMetastore

    trans, proto = make_stack(server.host, server.port, transport, protocol, sock)
    trans.open()
    return ThriftHiveMetastore.Client(proto), trans


def make_stack(host: str, port: int, transport: str, protocol: str, sock=None):
    """Build (transport, protocol) objects of the thrift library, not yet opened; over `sock`
    when given, else a plain TSocket to host:port."""
    if sock is None:
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
    args_class = args_class_of(method)
    values = {}
    for spec in filter(None, args_class.thrift_spec):
        _, ttype, name, type_args = spec[:4]
        values[name] = default_value(ttype, type_args)
    return args_class(**values)


def args_class_of(method: str):
    """The argument struct class of `method`: pyiceberg's, or one made from
    UNVENDORED_ARGUMENTS."""
    from hive_metastore import ThriftHiveMetastore

    generated = getattr(ThriftHiveMetastore, f"{method}_args", None)
    if generated is not None:
        return generated
    return make_struct(f"{method}_args", UNVENDORED_ARGUMENTS[method])


def default_value(ttype: int, type_args):
    if ttype == TType.STRUCT:
        return type_args[0]()
    defaults = {TType.STRING: "", TType.BOOL: False, TType.DOUBLE: 0.0, TType.LIST: [],
                TType.SET: set(), TType.MAP: {}}
    return defaults.get(ttype, 0)


def args_shape(method: str = UNIMPLEMENTED_METHOD) -> str:
    """`method`'s arguments as "ID:TTYPE,..." for the Java client, which lacks the newer IDL."""
    args_class = args_class_of(method)
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
    # Thrift's own text, as Apache's HMS answers a method it does not have.
    assert error.message == f"Invalid method name: '{method}'", (
        f"message {error.message!r} is not Thrift's for {method!r}")


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


# ------------------------------------------------------------------ catalog, database, table tests
# Helpers for the tests of the catalog/database/table calls (test_catalog_databases.py,
# test_tables.py, test_spark_sql.py, test_crash_recovery.py). They run against hivestore or, with
# HMS_URI, the Java reference HMS (Hive 2.3), and branch on which Hive generation answers.

import contextlib  # noqa: E402
import uuid  # noqa: E402

# The user every test connection announces with set_ugi.
TEST_USER, TEST_GROUPS = "hs_tester", ["hs_group"]

TEXT_INPUT_FORMAT = "org.apache.hadoop.mapred.TextInputFormat"
TEXT_OUTPUT_FORMAT = "org.apache.hadoop.hive.ql.io.HiveIgnoreKeyTextOutputFormat"
LAZY_SIMPLE_SERDE = "org.apache.hadoop.hive.serde2.lazy.LazySimpleSerDe"


def unique_name(prefix: str) -> str:
    """A fresh lowercase Hive identifier ([a-z0-9_]) so tests never see each other's objects."""
    return f"{prefix}_{uuid.uuid4().hex[:10]}"


@contextlib.contextmanager
def connected(server: Server, user: str = TEST_USER, groups=None, set_ugi: bool = True):
    """A generated (pyiceberg-vendored, Hive 4 IDL) client that has called set_ugi once."""
    client, trans = open_client(server)
    try:
        if set_ugi:
            client.set_ugi(user, list(groups if groups is not None else TEST_GROUPS))
        yield client
    finally:
        trans.close()


def is_unknown_method(error: BaseException) -> bool:
    return (isinstance(error, TApplicationException)
            and error.type == TApplicationException.UNKNOWN_METHOD)


def hive_generation(server: Server) -> int:
    """4 for hivestore (it implements Hive 4's service); for an external metastore, 2 when it
    answers the Hive 3 call `get_catalogs` with UNKNOWN_METHOD (Hive 2.x), else 4."""
    if not server.external:
        return 4
    cached = getattr(server, "_hive_generation", None)
    if cached is not None:
        return cached
    with connected(server, set_ugi=False) as client:
        try:
            client.get_catalogs()
            generation = 4
        except TApplicationException as error:
            if not is_unknown_method(error):
                raise
            generation = 2
    object.__setattr__(server, "_hive_generation", generation)
    return generation


def call_or_skip_on_reference(server: Server, function, *args):
    """Call `function`; on an external metastore that answers UNKNOWN_METHOD (Hive 2.3 lacks the
    Hive 3/4 `_req` calls and catalogs) skip the test instead of failing it."""
    import pytest

    try:
        return function(*args)
    except TApplicationException as error:
        if server.external and is_unknown_method(error):
            pytest.skip(f"{server.uri} lacks {getattr(function, '__name__', function)}: "
                        f"{error.message}")
        raise


@contextlib.contextmanager
def raises_hms(exception_type, *fragments: str):
    """Like pytest.raises(exception_type), and the exception's `message` contains every
    fragment (compared case-sensitively: clients match these texts)."""
    try:
        yield
    except exception_type as error:
        message = getattr(error, "message", None) or str(error)
        for fragment in fragments:
            assert fragment in message, (
                f"{type(error).__name__} message {message!r} lacks {fragment!r}")
        return
    except Exception as error:  # noqa: BLE001 - reported with its type and message
        raise AssertionError(
            f"expected {exception_type.__name__} containing {fragments!r}, got "
            f"{type(error).__name__}: {getattr(error, 'message', None) or error!r}") from error
    raise AssertionError(f"expected {exception_type.__name__} containing {fragments!r}; "
                         "the call succeeded")


def local_path(uri: Optional[str]) -> Optional[str]:
    """The local filesystem path of a `file:` location (`file:/x`, `file:///x`) or a bare path."""
    if uri is None:
        return None
    for prefix in ("file://", "file:"):
        if uri.startswith(prefix):
            uri = uri[len(prefix):]
            break
    while uri.startswith("//"):
        uri = uri[1:]
    return os.path.normpath(uri)


def warehouse_root(client) -> str:
    """The warehouse directory, as the server reports it: the `default` database's location."""
    return local_path(client.get_database("default").locationUri)


def storage_descriptor(columns=None, location=None):
    """A text-format StorageDescriptor as Hive's own client builds one."""
    from hive_metastore.ttypes import FieldSchema, SerDeInfo, StorageDescriptor

    if columns is None:
        columns = [FieldSchema("id", "int", "the id"), FieldSchema("name", "string", None)]
    return StorageDescriptor(
        cols=columns, location=location, inputFormat=TEXT_INPUT_FORMAT,
        outputFormat=TEXT_OUTPUT_FORMAT, compressed=False, numBuckets=-1,
        serdeInfo=SerDeInfo(name=None, serializationLib=LAZY_SIMPLE_SERDE,
                            parameters={"serialization.format": "1"}),
        bucketCols=[], sortCols=[], parameters={})


def make_table(db: str, name: str, columns=None, partition_keys=None,
               table_type="MANAGED_TABLE", parameters=None, location=None, owner=None, **extra):
    """A Table for create_table*, typed as Hive's and Spark's clients type them; the server
    fills location, times, catName."""
    from hive_metastore.ttypes import Table

    return Table(tableName=name, dbName=db, owner=owner,
                 sd=storage_descriptor(columns, location),
                 partitionKeys=list(partition_keys or []),
                 parameters=dict(parameters or {}), tableType=table_type, **extra)


def make_view(db: str, name: str, sql: str, columns=None):
    from hive_metastore.ttypes import Table

    return Table(tableName=name, dbName=db, sd=storage_descriptor(columns, None),
                 partitionKeys=[], parameters={}, tableType="VIRTUAL_VIEW",
                 viewOriginalText=sql, viewExpandedText=sql)


def make_struct(name: str, fields):
    """A Thrift struct class from (id, ttype, name, type_args, default) tuples, for the few Hive 4
    request types pyiceberg's vendored IDL lacks (e.g. DropTableRequest)."""
    from thrift.protocol.TBase import TBase

    spec = [None] * (max(field[0] for field in fields) + 1 if fields else 1)
    for field in fields:
        spec[field[0]] = tuple(field)
    names = [field[2] for field in fields]
    defaults = {field[2]: field[4] for field in fields}

    def __init__(self, **values):
        for key in names:
            setattr(self, key, values.pop(key, defaults[key]))
        if values:
            raise TypeError(f"{name} has no fields {sorted(values)}")

    return type(name, (TBase,), {"__slots__": tuple(names), "thrift_spec": tuple(spec),
                                 "__init__": __init__})


def call_method(client, method: str, arg_fields, result_fields, seqid: int = 0x7AB1):
    """Call `method` on the generated client's connection with an argument struct built from
    (id, ttype, name, type_args, value) tuples, and read a result struct of `result_fields`
    ((id, ttype, name, type_args) tuples; id 0 is the return value). Raises the declared exception
    that comes back, or the TApplicationException; returns the success value (None for void)."""
    args_class = make_struct(f"{method}_args", [(*f[:4], None) for f in arg_fields])
    result_class = make_struct(f"{method}_result", [(*f, None) for f in result_fields])
    args = args_class(**{f[2]: f[4] for f in arg_fields})
    oprot, iprot = client._oprot, client._iprot
    oprot.writeMessageBegin(method, TMessageType.CALL, seqid)
    args.write(oprot)
    oprot.writeMessageEnd()
    oprot.trans.flush()
    _, mtype, _ = iprot.readMessageBegin()
    if mtype == TMessageType.EXCEPTION:
        error = TApplicationException()
        error.read(iprot)
        iprot.readMessageEnd()
        raise error
    result = result_class()
    result.read(iprot)
    iprot.readMessageEnd()
    for field in result_fields:
        if field[0] > 0 and getattr(result, field[2]) is not None:
            raise getattr(result, field[2])
    success = [f for f in result_fields if f[0] == 0]
    return getattr(result, success[0][2]) if success else None


def drop_table_request_struct():
    """Hive 4's DropTableRequest, which pyiceberg 0.12's vendored IDL predates."""
    from hive_metastore.ttypes import EnvironmentContext

    return make_struct("DropTableRequest", [
        (1, TType.STRING, "catalogName", "UTF8", None),
        (2, TType.STRING, "dbName", "UTF8", None),
        (3, TType.STRING, "tableName", "UTF8", None),
        (4, TType.BOOL, "deleteData", None, None),
        (5, TType.STRUCT, "envContext", [EnvironmentContext, None], None),
        (6, TType.BOOL, "dropPartitions", None, None),
    ])


def drop_table_req(client, request):
    """drop_table_req(DropTableRequest) of Hive 4: void, throws NoSuchObjectException o1,
    MetaException o3."""
    from hive_metastore.ttypes import MetaException, NoSuchObjectException

    return call_method(client, "drop_table_req",
                       [(1, TType.STRUCT, "dropTableReq", [type(request), None], request)],
                       [(1, TType.STRUCT, "o1", [NoSuchObjectException, None]),
                        (2, TType.STRUCT, "o3", [MetaException, None])])


def create_database_req(client, request):
    """create_database_req(CreateDatabaseRequest) of Hive 4 (not in pyiceberg's client)."""
    from hive_metastore.ttypes import (AlreadyExistsException, CreateDatabaseRequest,
                                       InvalidObjectException, MetaException)

    return call_method(client, "create_database_req",
                       [(1, TType.STRUCT, "createDatabaseRequest",
                         [CreateDatabaseRequest, None], request)],
                       [(1, TType.STRUCT, "o1", [AlreadyExistsException, None]),
                        (2, TType.STRUCT, "o2", [InvalidObjectException, None]),
                        (3, TType.STRUCT, "o3", [MetaException, None])])


def alter_database_req(client, old_name: str, new_database):
    """alter_database_req(AlterDatabaseRequest{1 oldDbName, 2 newDb}) of Hive 4."""
    from hive_metastore.ttypes import Database, MetaException, NoSuchObjectException

    request_class = make_struct("AlterDatabaseRequest", [
        (1, TType.STRING, "oldDbName", "UTF8", None),
        (2, TType.STRUCT, "newDb", [Database, None], None),
    ])
    request = request_class(oldDbName=old_name, newDb=new_database)
    return call_method(client, "alter_database_req",
                       [(1, TType.STRUCT, "alterDbReq", [request_class, None], request)],
                       [(1, TType.STRUCT, "o1", [MetaException, None]),
                        (2, TType.STRUCT, "o2", [NoSuchObjectException, None])])


def hivestore_xfail(reason: str):
    """xfail(strict=True) on hivestore only: the behaviour is Hive's (the test passes against
    the reference HMS) and hivestore does not have it yet; `reason` names the missing method."""
    import pytest

    return pytest.mark.xfail(condition=not os.environ.get("HMS_URI"), strict=True, reason=reason)


def alter_table_request_struct():
    """Hive 4's AlterTableRequest with fields 10/11 (expectedParameterKey/Value, HIVE-26882),
    which pyiceberg 0.12's vendored IDL predates."""
    from hive_metastore.ttypes import EnvironmentContext, Table

    return make_struct("AlterTableRequest", [
        (1, TType.STRING, "catName", "UTF8", None),
        (2, TType.STRING, "dbName", "UTF8", None),
        (3, TType.STRING, "tableName", "UTF8", None),
        (4, TType.STRUCT, "table", [Table, None], None),
        (5, TType.STRUCT, "environmentContext", [EnvironmentContext, None], None),
        (6, TType.I64, "writeId", None, None),
        (7, TType.STRING, "validWriteIdList", "UTF8", None),
        (8, TType.LIST, "processorCapabilities", (TType.STRING, "UTF8", False), None),
        (9, TType.STRING, "processorIdentifier", "UTF8", None),
        (10, TType.STRING, "expectedParameterKey", "UTF8", None),
        (11, TType.STRING, "expectedParameterValue", "UTF8", None),
    ])


def alter_table_req(client, request):
    """alter_table_req(AlterTableRequest) -> AlterTableResponse; throws
    InvalidOperationException o1, MetaException o2."""
    from hive_metastore.ttypes import (AlterTableResponse, InvalidOperationException,
                                       MetaException)

    return call_method(client, "alter_table_req",
                       [(1, TType.STRUCT, "req", [type(request), None], request)],
                       [(0, TType.STRUCT, "success", [AlterTableResponse, None]),
                        (1, TType.STRUCT, "o1", [InvalidOperationException, None]),
                        (2, TType.STRUCT, "o2", [MetaException, None])])


def hide_generated_client_frames():
    """Hide the frames of the generated Thrift modules (tens of thousands of lines each) from
    pytest's tracebacks: pytest parses a module's whole source for every frame it shows, which
    costs seconds per failed or xfailed test. The exception type and message are still shown."""
    import sys

    for name in ("hive_metastore.ThriftHiveMetastore", "hive_metastore.ttypes",
                 "hmsclient.genthrift.hive_metastore.ThriftHiveMetastore",
                 "hmsclient.genthrift.hive_metastore.ttypes",
                 "pymetastore.hive_metastore.ThriftHiveMetastore",
                 "pymetastore.hive_metastore.ttypes"):
        module = sys.modules.get(name)
        if module is None:
            try:
                module = __import__(name, fromlist=["_"])
            except ImportError:
                continue
        module.__tracebackhide__ = True


class PureSaslAdapter:
    """pure-sasl's client behind the interface thrift_sasl's transport calls (that of the C
    `sasl` module): start, step, encode and decode with (ok, bytes) results, getError. Under a
    security layer (QOP auth-int, auth-conf), encode returns the frame, length first, and decode
    is given it."""

    def __init__(self, client):
        self.client = client
        self.error = ""

    def start(self, mechanism):
        try:
            return True, mechanism, self.client.process() or b""
        except Exception as error:  # pure-sasl raises several kinds; thrift_sasl wants a flag
            self.error = str(error)
            return False, mechanism, b""

    def step(self, challenge):
        try:
            return True, self.client.process(challenge) or b""
        except Exception as error:
            self.error = str(error)
            return False, b""

    def _layered(self):
        return getattr(self.client, "qop", b"auth") not in (b"auth", "auth")

    def encode(self, data):
        if not self._layered():
            return True, data
        wrapped = self.client.wrap(data)
        return True, struct.pack(">I", len(wrapped)) + wrapped

    def decode(self, frame):
        if not self._layered():
            return True, frame
        return True, self.client.unwrap(frame[4:])

    def getError(self):
        return self.error


def open_sasl_client(server: Server, mechanism: str, sock=None, **properties):
    """pyiceberg's generated client over thrift_sasl's SASL transport with pure-sasl's
    `mechanism` (`properties`: username, password, service, qops, ...); returns (client,
    transport), opened."""
    from hive_metastore import ThriftHiveMetastore
    from puresasl.client import SASLClient
    from thrift_sasl import TSaslClientTransport

    if sock is None:
        sock = TSocket.TSocket(server.host, server.port)
    sock.setTimeout(int(SOCKET_TIMEOUT_S * 1000))
    host = properties.pop("host", server.host)
    trans = TSaslClientTransport(
        lambda: PureSaslAdapter(SASLClient(host, mechanism=mechanism, **properties)),
        mechanism, sock)
    trans.open()
    return ThriftHiveMetastore.Client(TBinaryProtocol.TBinaryProtocol(trans)), trans


def stop_process(process, timeout_s: float) -> None:
    """SIGTERM a helper service (a KDC, slapd) still running; SIGKILL it after `timeout_s`."""
    if process is None or process.poll() is not None:
        return
    process.terminate()
    try:
        process.wait(timeout=timeout_s)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(timeout=timeout_s)
