"""Hive's serialised partition expressions, written by Hive 2.3.10's own classes.

Goal: `get_partitions_by_expr` answers the partitions (and `hasUnknownPartitions`) Hive's own
`PartitionExpressionForMetastore` keeps, for comparisons of string, int, bigint, date and
decimal keys, AND, OR, NOT, IN, BETWEEN, IS [NOT] NULL and a null literal;
`drop_partitions_req` with expressions drops exactly those partitions; bad bytes are a
MetaException; and Hive 4's calls that take expressions (`get_partition_names_req`,
`get_partitions_spec_by_expr`, `drop_partitions_req`'s expressions) answer the same
partitions.

Method: tests/java/PartitionExprClient.java builds the expressions with Hive 2.3.10's classes
from the pyspark jars, sends them through the real `HiveMetaStoreClient` and compares with Hive's
pruner run in the same JVM (one PASS/FAIL line per step); it prints each expression's bytes,
which the Hive 4 calls then send through the pyiceberg client. The same file runs against the
Java reference HMS 2.3 (`HMS_URI`), where the Hive 4 calls skip, and so do the two steps its
own pruner cannot evaluate from the pyspark jars (its FunctionRegistry needs LLAP's classes:
the server drops the connection). Skips only when `java`/`javac` are missing.
"""

import pytest
from hive_metastore.ttypes import (DropPartitionsRequest, FieldSchema, MetaException,
                                   NoSuchObjectException, PartitionsByExprRequest,
                                   RequestPartsSpec, DropPartitionsExpr)

from hms_helpers import make_table, unique_name
from java_clients import assert_java_passed, require_hive_client_transport, run_java
from test_partitions import part

DB_PREFIX = "jexpr"
EXPRESSIONS = ["string equals", "string greater", "int equals", "int not equals", "bigint less",
               "date at least", "decimal equals", "and", "or", "not", "in ints", "in strings",
               "between", "not between", "is null", "is not null", "unknown part"]
# Pruned by the reference's own PartitionPruner, whose FunctionRegistry does not load from the
# pyspark jars (it needs LLAP's classes).
NOT_ON_REFERENCE = {"not", "unknown part"}
STEPS = ["create", *[f"expr {name}" for name in EXPRESSIONS], "blobs", "bad bytes",
         "drop by expressions", "drop"]
KEYS = [FieldSchema("ds", "string"), FieldSchema("hr", "int"), FieldSchema("b", "bigint"),
        FieldSchema("dt", "date"), FieldSchema("p", "decimal(10,2)")]


@pytest.fixture(scope="module")
def java_run(server, tmp_path_factory):
    """Compile and run PartitionExprClient once; returns its PASS/FAIL lines and output."""
    require_hive_client_transport(server)
    arguments = [server.host, str(server.port), unique_name("jexpr")]
    return run_java("PartitionExprClient", arguments, tmp_path_factory.mktemp("java-exprs"))


@pytest.fixture(scope="module")
def blobs(java_run):
    """The bytes of each expression, by label, as Hive 2.3.10's serializer wrote them."""
    found = {}
    for line in java_run["stdout"].splitlines():
        if line.startswith("BLOB "):
            _, label, hex_bytes = line.split(" ")
            found[label.replace("_", " ")] = bytes.fromhex(hex_bytes)
    assert set(found) == set(EXPRESSIONS), java_run["stdout"][-3000:]
    return found


@pytest.mark.parametrize("step", STEPS)
def test_java_partition_expressions_step(server, java_run, hive, step):
    if hive == 2 and step.removeprefix("expr ") in NOT_ON_REFERENCE:
        pytest.skip("the reference's PartitionPruner cannot load FunctionRegistry from the pyspark jars")
    assert_java_passed(java_run, step, server)


@pytest.fixture()
def table(client, db):
    """`events`, partitioned as the Java program's table, with its nine partitions."""
    client.create_table(make_table(db, "events", partition_keys=KEYS))
    for day in ["2024-01-01", "2024-01-02", "2024-02-01"]:
        for hour in [1, 7, 10]:
            decimal = f"{hour / 2:g}"
            client.add_partition(part(db, "events", [day, str(hour), str(hour * 100), day, decimal]))
    return db, "events"


def by_expr(client, table, expression, **extra):
    db, name = table
    return PartitionsByExprRequest(dbName=db, tblName=name, expr=expression, **extra)


def names_of(partitions):
    keys = [key.name for key in KEYS]
    return sorted("/".join(f"{k}={v}" for k, v in zip(keys, p.values)) for p in partitions)


@pytest.mark.parametrize("label", EXPRESSIONS)
def test_hive4_calls_answer_what_get_partitions_by_expr_does(client, hive, blobs, table, label):
    if hive == 2:
        pytest.skip("get_partition_names_req and get_partitions_spec_by_expr are Hive 3+ calls")
    answer = client.get_partitions_by_expr(by_expr(client, table, blobs[label]))
    names = client.get_partition_names_req(by_expr(client, table, blobs[label]))
    assert sorted(names) == names_of(answer.partitions)
    specs = client.get_partitions_spec_by_expr(by_expr(client, table, blobs[label]))
    assert specs.hasUnknownPartitions == answer.hasUnknownPartitions
    listed = [p for spec in specs.partitionsSpec
              for p in (spec.sharedSDPartitionSpec.partitions if spec.sharedSDPartitionSpec
                        else spec.partitionList.partitions)]
    assert names_of(listed) == names_of(answer.partitions)
    limited = client.get_partitions_by_expr(by_expr(client, table, blobs[label], maxParts=1))
    assert len(limited.partitions) == min(1, len(answer.partitions))


def test_bad_expressions_and_missing_tables_are_refused(client, hive, blobs, table):
    if hive == 2:
        pytest.skip("get_partition_names_req is a Hive 3+ call")
    db, name = table
    with pytest.raises(MetaException) as bad:
        client.get_partitions_by_expr(by_expr(client, table, blobs["and"][:-3]))
    assert "Failed to deserialize the expression" in bad.value.message
    with pytest.raises(MetaException):
        client.get_partition_names_req(by_expr(client, table, b"\x01\x02garbage"))
    with pytest.raises(NoSuchObjectException):
        client.get_partitions_by_expr(by_expr(client, (db, "missing"), blobs["and"]))
    # A key the table lacks is Hive's evaluator error.
    client.create_table(make_table(db, "other", partition_keys=[FieldSchema("hr", "int")]))
    with pytest.raises(MetaException) as missing_key:
        client.get_partitions_by_expr(by_expr(client, (db, "other"), blobs["string equals"]))
    assert "cannot find field ds" in missing_key.value.message


def test_drop_partitions_req_drops_what_the_expressions_select(client, hive, blobs, table):
    if hive == 2:
        pytest.skip("runs through the Hive 4 IDL's request form")
    db, name = table
    selected = client.get_partitions_by_expr(by_expr(client, table, blobs["or"]))
    assert selected.partitions and not selected.hasUnknownPartitions
    request = DropPartitionsRequest(
        dbName=db, tblName=name, deleteData=False, ifExists=False, needResult=True,
        parts=RequestPartsSpec(exprs=[DropPartitionsExpr(expr=blobs["or"], partArchiveLevel=1)]))
    dropped = client.drop_partitions_req(request)
    assert names_of(dropped.partitions) == names_of(selected.partitions)
    left = client.get_partition_names(db, name, -1)
    assert not set(left) & set(names_of(selected.partitions))
    # Unknown partitions are refused, and nothing is dropped.
    request.parts = RequestPartsSpec(exprs=[DropPartitionsExpr(expr=blobs["unknown part"])])
    with pytest.raises(MetaException) as unknown:
        client.drop_partitions_req(request)
    assert unknown.value.message == "Unexpected unknown partitions to drop"
    assert client.get_partition_names(db, name, -1) == left
