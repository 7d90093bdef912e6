"""hivestore's Thrift IDL against the generated Python client that pyiceberg vendors.

Parses idl/hive_metastore.thrift and idl/fb303.thrift with thriftpy2 (a parser that owes
nothing to the Thrift compiler that generated hivestore's Rust code) and compares every
definition with pyiceberg's `hive_metastore` and `fb303` modules (Thrift 0.16 output for
Hive 4.0):

  * structs, unions and exceptions: field ids, names, full nested types, requiredness
    (pyiceberg's `validate()` names its required fields) and default values;
  * enums: names and values; constants: names and values;
  * both services: every method's argument ids, names, types and defaults, result type,
    declared exceptions (ids, names, types), and oneway.

Python's generated code cannot tell an enum from an i32, or `optional` from default
requiredness, so both sides are compared as i32 and required-or-not.

Every difference must be listed in EXPECTED_DIFFERENCES with its reason: the test fails on a
difference that is not listed, and on a listed one that no longer occurs.

Run from the repository root: python -m pytest tests/python/test_idl_conformance.py
"""

from __future__ import annotations

import inspect
import re
from pathlib import Path

# Deliberately no importorskip: without the pinned packages this test must fail, not skip.
import fb303.FacebookService as py_fb303_service  # pyiceberg==0.12.0
import fb303.ttypes as py_fb303_types
import hive_metastore.constants as py_constants
import hive_metastore.ThriftHiveMetastore as py_service
import hive_metastore.ttypes as py_types
import thriftpy2
import thriftpy2.thrift
from thrift.Thrift import TException, TType

IDL_DIR = Path(__file__).resolve().parents[2] / "idl"

# --------------------------------------------------------------------------------------
# Deliberate differences, each with its reason. Keys are produced by `differences()`.
# --------------------------------------------------------------------------------------
NEWER = "Hive 4 (the IDL hivestore follows) is newer than the Hive 4.0 IDL pyiceberg 0.12.0 vendors"
ENGINE = NEWER + ": engine became optional with the default \"hive\" (Hive 4.0 required it)"
INDEX = ("re-added from the Hive 0.x IDL: Hive's index API, dropped in Hive 3, so that every "
         "method an old client can send dispatches")
LEGACY_THROWS = ("re-added with the exceptions Hive 0.x-3 declared for it (MetaException, "
                 "InvalidOperationException, UnknownDBException), which 2.3 clients read; "
                 "Hive 4.0 declared none")

EXPECTED_DIFFERENCES: dict[str, str] = {
    "struct AbortCompactResponse: only in hivestore's IDL": NEWER,
    "struct AbortCompactionRequest: only in hivestore's IDL": NEWER,
    "struct AbortCompactionResponseElement: only in hivestore's IDL": NEWER,
    "struct AbortTxnRequest field 4 (errorCode): only in hivestore's IDL": NEWER,
    "struct AbortTxnsRequest field 2 (errorCode): only in hivestore's IDL": NEWER,
    "struct AddPartitionsRequest field 8 (skipColumnSchemaForPartition): only in hivestore's IDL": NEWER,
    "struct AddPartitionsRequest field 9 (partitionColSchema): only in hivestore's IDL": NEWER,
    "struct AddPartitionsRequest field 10 (environmentContext): only in hivestore's IDL": NEWER,
    "struct AddPartitionsResult field 3 (partitionColSchema): only in hivestore's IDL": NEWER,
    "struct AllocateTableWriteIdsRequest field 6 (reallocate): only in hivestore's IDL": NEWER,
    "struct AlterDataConnectorRequest: only in hivestore's IDL": NEWER,
    "struct AlterDatabaseRequest: only in hivestore's IDL": NEWER,
    "struct AlterPartitionsRequest field 8 (skipColumnSchemaForPartition): only in hivestore's IDL": NEWER,
    "struct AlterPartitionsRequest field 9 (partitionColSchema): only in hivestore's IDL": NEWER,
    "struct AlterTableRequest field 10 (expectedParameterKey): only in hivestore's IDL": NEWER,
    "struct AlterTableRequest field 11 (expectedParameterValue): only in hivestore's IDL": NEWER,
    "struct AppendPartitionsRequest: only in hivestore's IDL": NEWER,
    "struct ColumnStatistics field 4 (engine): default 'hive' vs pyiceberg None": NEWER + ": engine defaults to \"hive\"",
    "struct CompactionAbortedException: only in hivestore's IDL": NEWER,
    "struct CompactionInfoStruct field 17 (poolname): only in hivestore's IDL": NEWER,
    "struct CompactionInfoStruct field 18 (numberOfBuckets): only in hivestore's IDL": NEWER,
    "struct CompactionInfoStruct field 19 (orderByClause): only in hivestore's IDL": NEWER,
    "struct CompactionRequest field 9 (poolName): only in hivestore's IDL": NEWER,
    "struct CompactionRequest field 10 (numberOfBuckets): only in hivestore's IDL": NEWER,
    "struct CompactionRequest field 11 (orderByClause): only in hivestore's IDL": NEWER,
    'struct CreateDataConnectorRequest field 1 (connector): required True vs pyiceberg False': NEWER + ": the connector is required",
    'struct CreateDatabaseRequest field 11 (type): type i32 vs pyiceberg string': NEWER + (": type is the DatabaseType enum (an i32 on the wire) where Hive 4.0 had a string; "
        "not wire-compatible with a Hive 4.0 client that sets it (pyiceberg never calls "
        "create_database_req)"),
    "struct CreateDatabaseRequest field 13 (remote_dbname): only in hivestore's IDL": NEWER,
    "struct DateColumnStatsData field 6 (histogram): only in hivestore's IDL": NEWER,
    "struct DecimalColumnStatsData field 6 (histogram): only in hivestore's IDL": NEWER,
    "struct DoubleColumnStatsData field 6 (histogram): only in hivestore's IDL": NEWER,
    "struct DropCatalogRequest field 2 (ifExists): only in hivestore's IDL": NEWER,
    "struct DropDataConnectorRequest: only in hivestore's IDL": NEWER,
    "struct DropPartitionRequest: only in hivestore's IDL": NEWER,
    "struct DropPartitionsRequest field 10 (skipColumnSchemaForPartition): only in hivestore's IDL": NEWER,
    "struct DropTableRequest: only in hivestore's IDL": NEWER,
    "struct FindNextCompactRequest field 3 (poolName): only in hivestore's IDL": NEWER,
    "struct FireEventRequest field 7 (tblParams): only in hivestore's IDL": NEWER,
    "struct FireEventRequestData field 3 (refreshEvent): only in hivestore's IDL": NEWER,
    "struct GetFunctionsRequest: only in hivestore's IDL": NEWER,
    "struct GetFunctionsResponse: only in hivestore's IDL": NEWER,
    "struct GetPartitionsByFilterRequest: only in hivestore's IDL": NEWER,
    "struct GetPartitionsByNamesRequest field 7 (engine): default 'hive' vs pyiceberg None": NEWER + ": engine defaults to \"hive\"",
    "struct GetPartitionsByNamesRequest field 11 (skipColumnSchemaForPartition): only in hivestore's IDL": NEWER,
    "struct GetPartitionsByNamesRequest field 12 (includeParamKeyPattern): only in hivestore's IDL": NEWER,
    "struct GetPartitionsByNamesRequest field 13 (excludeParamKeyPattern): only in hivestore's IDL": NEWER,
    "struct GetPartitionsPsWithAuthRequest field 10 (skipColumnSchemaForPartition): only in hivestore's IDL": NEWER,
    "struct GetPartitionsPsWithAuthRequest field 11 (includeParamKeyPattern): only in hivestore's IDL": NEWER,
    "struct GetPartitionsPsWithAuthRequest field 12 (excludeParamKeyPattern): only in hivestore's IDL": NEWER,
    "struct GetPartitionsPsWithAuthRequest field 13 (partNames): only in hivestore's IDL": NEWER,
    "struct GetTableRequest field 10 (engine): default 'hive' vs pyiceberg None": NEWER + ": engine defaults to \"hive\"",
    "struct Index: only in hivestore's IDL": INDEX,
    "struct LockRequest field 8 (locklessReadsEnabled): only in hivestore's IDL": NEWER,
    "struct LongColumnStatsData field 6 (histogram): only in hivestore's IDL": NEWER,
    "struct NoSuchCompactionException: only in hivestore's IDL": NEWER,
    "struct NotificationEventRequest field 4 (catName): only in hivestore's IDL": NEWER,
    "struct NotificationEventRequest field 5 (dbName): only in hivestore's IDL": NEWER,
    "struct NotificationEventRequest field 6 (tableNames): only in hivestore's IDL": NEWER,
    "struct NotificationEventsCountRequest field 6 (tableNames): only in hivestore's IDL": NEWER,
    "struct PartitionsByExprRequest field 10 (skipColumnSchemaForPartition): only in hivestore's IDL": NEWER,
    "struct PartitionsByExprRequest field 11 (includeParamKeyPattern): only in hivestore's IDL": NEWER,
    "struct PartitionsByExprRequest field 12 (excludeParamKeyPattern): only in hivestore's IDL": NEWER,
    "struct PartitionsRequest field 7 (skipColumnSchemaForPartition): only in hivestore's IDL": NEWER,
    "struct PartitionsRequest field 8 (includeParamKeyPattern): only in hivestore's IDL": NEWER,
    "struct PartitionsRequest field 9 (excludeParamKeyPattern): only in hivestore's IDL": NEWER,
    'struct PartitionsStatsRequest field 7 (engine): required False vs pyiceberg True': ENGINE,
    "struct PartitionsStatsRequest field 7 (engine): default 'hive' vs pyiceberg None": ENGINE,
    "struct PropertyGetRequest: only in hivestore's IDL": NEWER,
    "struct PropertyGetResponse: only in hivestore's IDL": NEWER,
    "struct PropertySetRequest: only in hivestore's IDL": NEWER,
    'struct SetPartitionsStatsRequest field 5 (engine): required False vs pyiceberg True': ENGINE,
    "struct SetPartitionsStatsRequest field 5 (engine): default 'hive' vs pyiceberg None": ENGINE,
    "struct ShowCompactRequest field 1 (id): only in hivestore's IDL": NEWER,
    "struct ShowCompactRequest field 2 (poolName): only in hivestore's IDL": NEWER,
    "struct ShowCompactRequest field 3 (dbName): only in hivestore's IDL": NEWER,
    "struct ShowCompactRequest field 4 (tbName): only in hivestore's IDL": NEWER,
    "struct ShowCompactRequest field 5 (partName): only in hivestore's IDL": NEWER,
    "struct ShowCompactRequest field 6 (type): only in hivestore's IDL": NEWER,
    "struct ShowCompactRequest field 7 (state): only in hivestore's IDL": NEWER,
    "struct ShowCompactRequest field 8 (limit): only in hivestore's IDL": NEWER,
    "struct ShowCompactRequest field 9 (order): only in hivestore's IDL": NEWER,
    "struct ShowCompactResponseElement field 20 (poolName): only in hivestore's IDL": NEWER,
    "struct ShowCompactResponseElement field 21 (nextTxnId): only in hivestore's IDL": NEWER,
    "struct ShowCompactResponseElement field 22 (txnId): only in hivestore's IDL": NEWER,
    "struct ShowCompactResponseElement field 23 (commitTime): only in hivestore's IDL": NEWER,
    "struct ShowCompactResponseElement field 24 (hightestWriteId): only in hivestore's IDL": NEWER,
    "struct TableMeta field 6 (ownerName): only in hivestore's IDL": NEWER,
    "struct TableMeta field 7 (ownerType): only in hivestore's IDL": NEWER,
    'struct TableStatsRequest field 6 (engine): required False vs pyiceberg True': ENGINE,
    "struct TableStatsRequest field 6 (engine): default 'hive' vs pyiceberg None": ENGINE,
    "struct TimestampColumnStatsData field 6 (histogram): only in hivestore's IDL": NEWER,
    'enum CompactionType.ABORT_TXN_CLEANUP: 4 vs pyiceberg None': NEWER,
    'enum CompactionType.REBALANCE: 3 vs pyiceberg None': NEWER,
    'enum TxnType.REBALANCE_COMPACTION: 6 vs pyiceberg None': NEWER,
    "const EXPECTED_PARAMETER_KEY: only in hivestore's IDL": NEWER,
    "const EXPECTED_PARAMETER_VALUE: only in hivestore's IDL": NEWER,
    "const HIVE_FILTER_FIELD_TABLE_NAME: only in hivestore's IDL": NEWER,
    "const HIVE_FILTER_FIELD_TABLE_TYPE: only in hivestore's IDL": NEWER,
    "const IF_PURGE: only in hivestore's IDL": NEWER,
    "const NO_AUTO_COMPACT: only in hivestore's IDL": NEWER + ": TABLE_NO_AUTO_COMPACT was renamed NO_AUTO_COMPACT (same value)",
    'const TABLE_NO_AUTO_COMPACT: only in pyiceberg': NEWER + ": TABLE_NO_AUTO_COMPACT was renamed NO_AUTO_COMPACT (same value)",
    "method abort_Compactions: only in hivestore's IDL": NEWER,
    "method add_index: only in hivestore's IDL": INDEX,
    "method add_write_ids_to_min_history: only in hivestore's IDL": NEWER,
    "method alter_database_req: only in hivestore's IDL": NEWER,
    "method alter_dataconnector_req: only in hivestore's IDL": NEWER,
    "method alter_index: only in hivestore's IDL": INDEX,
    "method append_partition_req: only in hivestore's IDL": NEWER,
    "method create_database_req: only in hivestore's IDL": NEWER,
    "method create_dataconnector_req: only in hivestore's IDL": NEWER,
    "method drop_dataconnector_req: only in hivestore's IDL": NEWER,
    "method drop_index_by_name: only in hivestore's IDL": INDEX,
    "method drop_partition_req: only in hivestore's IDL": NEWER,
    "method drop_table_req: only in hivestore's IDL": NEWER,
    "method fetch_partition_names_req: only in hivestore's IDL": NEWER,
    "method get_functions_req: only in hivestore's IDL": NEWER,
    "method get_index_by_name: only in hivestore's IDL": INDEX,
    "method get_index_names: only in hivestore's IDL": INDEX,
    "method get_indexes: only in hivestore's IDL": INDEX,
    "method get_partitions_by_filter_req: only in hivestore's IDL": NEWER,
    "method get_table_objects_by_name result field 1 (o1): only in hivestore's IDL": LEGACY_THROWS,
    "method get_table_objects_by_name result field 2 (o2): only in hivestore's IDL": LEGACY_THROWS,
    "method get_table_objects_by_name result field 3 (o3): only in hivestore's IDL": LEGACY_THROWS,
    "method get_partitions_by_names result field 3 (o3): only in hivestore's IDL": NEWER + ": it also throws InvalidObjectException",
    "method get_partitions_by_names_req result field 3 (o3): only in hivestore's IDL": NEWER + ": it also throws InvalidObjectException",
    "method get_properties: only in hivestore's IDL": NEWER,
    "method set_properties: only in hivestore's IDL": NEWER,
    "method submit_for_cleanup: only in hivestore's IDL": NEWER,
}


# --------------------------------------------------------------------------------------
# Normalised views
# --------------------------------------------------------------------------------------
def py_type(ttype, args) -> str:
    simple = {TType.BOOL: "bool", TType.BYTE: "i8", TType.I16: "i16", TType.I32: "i32",
              TType.I64: "i64", TType.DOUBLE: "double"}
    if ttype in simple:
        return simple[ttype]
    if ttype == TType.STRING:
        return "binary" if args == "BINARY" else "string"
    if ttype == TType.STRUCT:
        return args[0].__name__
    if ttype in (TType.LIST, TType.SET):
        kind = "list" if ttype == TType.LIST else "set"
        return f"{kind}<{py_type(args[0], args[1])}>"
    if ttype == TType.MAP:
        return f"map<{py_type(args[0], args[1])}, {py_type(args[2], args[3])}>"
    raise AssertionError(f"unknown pyiceberg ttype {ttype}")


def tp2_type(ttype, args=None) -> str:
    T = thriftpy2.thrift.TType
    simple = {T.BOOL: "bool", T.BYTE: "i8", T.I16: "i16", T.I32: "i32", T.I64: "i64",
              T.DOUBLE: "double", T.STRING: "string", T.BINARY: "binary"}
    if ttype in simple:
        return simple[ttype]  # an enum is an I32 with the enum class as argument
    if ttype == T.STRUCT:
        return args.__name__

    def elem(spec):
        return tp2_type(spec) if isinstance(spec, int) else tp2_type(spec[0], spec[1])

    if ttype in (T.LIST, T.SET):
        kind = "list" if ttype == T.LIST else "set"
        return f"{kind}<{elem(args)}>"
    if ttype == T.MAP:
        return f"map<{elem(args[0])}, {elem(args[1])}>"
    raise AssertionError(f"unknown thriftpy2 ttype {ttype}")


def py_required(cls) -> set[str]:
    try:
        src = inspect.getsource(cls.validate)
    except (AttributeError, OSError, TypeError):
        return set()
    return set(re.findall(r"Required field (\w+) is unset", src))


def py_spec(cls) -> list[tuple]:
    spec = [e for e in (getattr(cls, "thrift_spec", None) or ()) if e is not None]
    if spec or not hasattr(cls, "write"):
        return spec
    # Fields with implicit (negative) ids leave Python's thrift_spec empty (Hive 4.0's
    # drop_dataconnector); write() still names them with their ids and types.
    src = inspect.getsource(cls.write)
    out = []
    for name, tname, fid in re.findall(r'writeFieldBegin\("(\w+)", TType\.(\w+), (-?\d+)\)', src):
        ttype = getattr(TType, tname)
        out.append((int(fid), ttype, name, "UTF8" if ttype == TType.STRING else None, None))
    return out


def py_fields(cls) -> dict[int, tuple]:
    """id -> (name, type, required, default)"""
    req = py_required(cls)
    return {e[0]: (e[2], py_type(e[1], e[3]), e[2] in req, e[4]) for e in py_spec(cls)}


def tp2_fields(cls) -> dict[int, tuple]:
    defaults = dict(cls.default_spec)
    out = {}
    for fid, spec in cls.thrift_spec.items():
        if len(spec) == 3:
            ttype, name, required = spec
            args = None
        else:
            ttype, name, args, required = spec
        out[fid] = (name, tp2_type(ttype, args), bool(required), defaults.get(name))
    return out


def compare_fields(where: str, ours: dict, theirs: dict, out: list[str]):
    for fid in sorted(set(ours) | set(theirs), key=lambda i: (i < 0, abs(i))):
        if fid not in theirs:
            out.append(f"{where} field {fid} ({ours[fid][0]}): only in hivestore's IDL")
            continue
        if fid not in ours:
            out.append(f"{where} field {fid} ({theirs[fid][0]}): only in pyiceberg")
            continue
        (n1, t1, r1, d1), (n2, t2, r2, d2) = ours[fid], theirs[fid]
        if n1 != n2:
            out.append(f"{where} field {fid}: name {n1} vs pyiceberg {n2}")
        if t1 != t2:
            out.append(f"{where} field {fid} ({n1}): type {t1} vs pyiceberg {t2}")
        if r1 != r2:
            out.append(f"{where} field {fid} ({n1}): required {r1} vs pyiceberg {r2}")
        if d1 != d2:
            out.append(f"{where} field {fid} ({n1}): default {d1!r} vs pyiceberg {d2!r}")


def is_tp2_defined_in(obj, filename: str) -> bool:
    return str(getattr(obj, "__thrift_file__", "")).endswith(filename)


def load_ours():
    hms = thriftpy2.load(str(IDL_DIR / "hive_metastore.thrift"), module_name="hivestore_hms_thrift",
                         include_dirs=[str(IDL_DIR)])
    fb = thriftpy2.load(str(IDL_DIR / "fb303.thrift"), module_name="hivestore_fb303_thrift")
    return hms, fb


def type_defs_ours(module, filename):
    structs, enums = {}, {}
    for name, obj in vars(module).items():
        if not inspect.isclass(obj) or not is_tp2_defined_in(obj, filename):
            continue
        if hasattr(obj, "_VALUES_TO_NAMES"):
            enums[name] = dict(obj._NAMES_TO_VALUES)
        elif hasattr(obj, "thrift_spec") and not hasattr(obj, "thrift_services"):
            structs[name] = (tp2_fields(obj), issubclass(obj, thriftpy2.thrift.TException))
    return structs, enums


def type_defs_py(module):
    structs, enums = {}, {}
    for name, obj in vars(module).items():
        if not inspect.isclass(obj) or obj.__module__ != module.__name__:
            continue
        if hasattr(obj, "_VALUES_TO_NAMES"):
            enums[name] = dict(obj._NAMES_TO_VALUES)
        elif hasattr(obj, "thrift_spec"):
            structs[name] = (py_fields(obj), issubclass(obj, TException))
    return structs, enums


def compare_types(label, ours, theirs, out):
    (s1, e1), (s2, e2) = ours, theirs
    for name in sorted(set(s1) | set(s2)):
        if name not in s2:
            out.append(f"{label}struct {name}: only in hivestore's IDL")
        elif name not in s1:
            out.append(f"{label}struct {name}: only in pyiceberg")
        else:
            if s1[name][1] != s2[name][1]:
                out.append(f"{label}struct {name}: exception {s1[name][1]} vs pyiceberg {s2[name][1]}")
            compare_fields(f"{label}struct {name}", s1[name][0], s2[name][0], out)
    for name in sorted(set(e1) | set(e2)):
        if name not in e2:
            out.append(f"{label}enum {name}: only in hivestore's IDL")
        elif name not in e1:
            out.append(f"{label}enum {name}: only in pyiceberg")
        else:
            for v in sorted(set(e1[name]) | set(e2[name])):
                a, b = e1[name].get(v), e2[name].get(v)
                if a != b:
                    out.append(f"{label}enum {name}.{v}: {a} vs pyiceberg {b}")


def method_view_ours(svc, name):
    args = tp2_fields(getattr(svc, f"{name}_args"))
    res_cls = getattr(svc, f"{name}_result")
    res = tp2_fields(res_cls)
    return args, res, bool(res_cls.oneway)


def method_view_py(mod, name):
    args = py_fields(getattr(mod, f"{name}_args"))
    res_cls = getattr(mod, f"{name}_result", None)
    res = py_fields(res_cls) if res_cls is not None else {}
    return args, res, res_cls is None


def compare_services(label, svc_ours, own_names, py_mod, out):
    py_names = [n for n, v in vars(py_mod.Iface).items() if inspect.isfunction(v)]
    for name in sorted(set(own_names) | set(py_names)):
        if name not in py_names:
            out.append(f"{label}method {name}: only in hivestore's IDL")
            continue
        if name not in own_names:
            out.append(f"{label}method {name}: only in pyiceberg")
            continue
        a1, r1, o1 = method_view_ours(svc_ours, name)
        a2, r2, o2 = method_view_py(py_mod, name)
        if o1 != o2:
            out.append(f"{label}method {name}: oneway {o1} vs pyiceberg {o2}")
        compare_fields(f"{label}method {name} args", a1, a2, out)
        compare_fields(f"{label}method {name} result", r1, r2, out)


def differences() -> list[str]:
    hms, fb = load_ours()
    out: list[str] = []
    compare_types("", type_defs_ours(hms, "hive_metastore.thrift"), type_defs_py(py_types), out)
    compare_types("fb303 ", type_defs_ours(fb, "fb303.thrift"), type_defs_py(py_fb303_types), out)

    consts_ours = {k: v for k, v in vars(hms).items()
                   if k.isupper() and isinstance(v, (str, int, float))}
    consts_py = {k: v for k, v in vars(py_constants).items()
                 if k.isupper() and isinstance(v, (str, int, float))}
    for k in sorted(set(consts_ours) | set(consts_py)):
        if k not in consts_py:
            out.append(f"const {k}: only in hivestore's IDL")
        elif k not in consts_ours:
            out.append(f"const {k}: only in pyiceberg")
        elif consts_ours[k] != consts_py[k]:
            out.append(f"const {k}: {consts_ours[k]!r} vs pyiceberg {consts_py[k]!r}")

    fb_names = list(fb.FacebookService.thrift_services)
    hms_names = [n for n in hms.ThriftHiveMetastore.thrift_services if n not in fb_names]
    compare_services("", hms.ThriftHiveMetastore, hms_names, py_service, out)
    compare_services("fb303 ", fb.FacebookService, fb_names, py_fb303_service, out)
    return out


def test_idl_matches_pyiceberg_except_listed_differences():
    actual = differences()
    assert len(actual) == len(set(actual)), "a difference key occurs twice"
    unexpected = [d for d in actual if d not in EXPECTED_DIFFERENCES]
    stale = [d for d in EXPECTED_DIFFERENCES if d not in set(actual)]
    msg = []
    if unexpected:
        msg.append("differences not listed in EXPECTED_DIFFERENCES:\n  " + "\n  ".join(unexpected))
    if stale:
        msg.append("listed differences that no longer occur:\n  " + "\n  ".join(stale))
    assert not msg, "\n".join(msg)


def test_every_listed_difference_has_a_reason():
    for key, reason in EXPECTED_DIFFERENCES.items():
        assert reason.strip(), key


def test_the_comparison_sees_the_whole_idl():
    """Guards against a vacuous pass: both sides are large and mostly agree."""
    hms, fb = load_ours()
    structs, enums = type_defs_ours(hms, "hive_metastore.thrift")
    assert len(structs) > 300 and len(enums) > 25
    assert len(hms.ThriftHiveMetastore.thrift_services) > 290
    assert fb.FacebookService.thrift_services[-1] == "shutdown"
    assert fb.FacebookService.shutdown_result.oneway
