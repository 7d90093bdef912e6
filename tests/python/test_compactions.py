"""The compaction calls around cleaning, through the pyiceberg-vendored client and raw calls
for the Hive 4 calls its IDL lacks.

Goal: `submit_for_cleanup` queues a request as `ready for cleaning` (hivestore runs no
compactor or cleaner) and answers true; `get_latest_committed_compaction_info` reports the
latest such request per partition, filtered by partition names and `lastCompactionId`;
`abort_Compactions` aborts initiated requests with Hive's per-id status and message, says
why for an id that is unknown or not initiated, and an aborted request no longer blocks a new
one for the same partition; bad input changes nothing.

Method: database names are unique per test, and requests are compared by database. Hive 2.3
has none of these calls: against the reference every test skips on UNKNOWN_METHOD.
"""

from hive_metastore.ttypes import (
    CompactionRequest,
    CompactionType,
    GetLatestCommittedCompactionInfoRequest,
    MetaException,
    ShowCompactRequest,
)
from thrift.Thrift import TApplicationException, TType

from hms_helpers import call_method, call_or_skip_on_reference, connected, make_struct, unique_name

ABORT_REQUEST = make_struct("AbortCompactionRequest", [
    (1, TType.LIST, "compactionIds", (TType.I64, None, False), None),
    (2, TType.STRING, "type", "UTF8", None),
    (3, TType.STRING, "poolName", "UTF8", None)])
ABORT_ELEMENT = make_struct("AbortCompactionResponseElement", [
    (1, TType.I64, "compactionId", None, None),
    (2, TType.STRING, "status", "UTF8", None),
    (3, TType.STRING, "message", "UTF8", None)])
ABORT_RESPONSE = make_struct("AbortCompactResponse", [
    (1, TType.MAP, "abortedcompacts",
     (TType.I64, None, TType.STRUCT, [ABORT_ELEMENT, None], False), None)])


def submit_for_cleanup(client, request, highest_write_id, txn_id):
    return call_method(
        client, "submit_for_cleanup",
        [(1, TType.STRUCT, "o1", [CompactionRequest, None], request),
         (2, TType.I64, "o2", None, highest_write_id), (3, TType.I64, "o3", None, txn_id)],
        [(0, TType.BOOL, "success", None), (1, TType.STRUCT, "o1", [MetaException, None])])


def abort_compactions(client, ids):
    response = call_method(
        client, "abort_Compactions",
        [(1, TType.STRUCT, "rqst", [ABORT_REQUEST, None], ABORT_REQUEST(compactionIds=ids))],
        [(0, TType.STRUCT, "success", [ABORT_RESPONSE, None])])
    return {id_: (element.status, element.message)
            for id_, element in response.abortedcompacts.items()}


def shown(client, db):
    return {element.id: element for element in client.show_compact(ShowCompactRequest()).compacts
            if element.dbname == db}


def latest(client, db, partitions=None, last=None):
    response = client.get_latest_committed_compaction_info(GetLatestCommittedCompactionInfoRequest(
        dbname=db, tablename="t", partitionnames=partitions, lastCompactionId=last))
    return [(info.id, info.partitionname, info.type) for info in response.compactions]


def test_submitted_cleanups_are_the_latest_committed_compactions(server):
    db = unique_name("compact")
    with connected(server) as client:
        def submit(partition, highest_write_id):
            request = CompactionRequest(dbname=db, tablename="T", partitionname=partition,
                                        type=CompactionType.MAJOR)
            assert call_or_skip_on_reference(server, submit_for_cleanup, client, request,
                                             highest_write_id, 9) is True

        submit("p=1", 3)
        submit("p=2", 4)
        submit("p=1", 5)
        by_id = shown(client, db)
        assert [(e.partitionname, e.state) for e in by_id.values()] == [
            ("p=1", "ready for cleaning"), ("p=2", "ready for cleaning"),
            ("p=1", "ready for cleaning")]
        first, second, third = by_id
        assert latest(client, db) == [(third, "p=1", CompactionType.MAJOR),
                                      (second, "p=2", CompactionType.MAJOR)]
        assert latest(client, db, partitions=["p=2"]) == [(second, "p=2", CompactionType.MAJOR)]
        assert latest(client, db, last=second) == [(third, "p=1", CompactionType.MAJOR)]
        assert latest(client, db, partitions=["p=9"]) == []
        initiated = client.compact2(CompactionRequest(dbname=db, tablename="t",
                                                      partitionname="p=3",
                                                      type=CompactionType.MINOR))
        assert initiated.accepted and latest(client, db, partitions=["p=3"]) == []

        try:
            client.get_latest_committed_compaction_info(
                GetLatestCommittedCompactionInfoRequest(dbname="", tablename="t"))
            raise AssertionError("an empty database name was accepted")
        except TApplicationException as error:
            assert "Database name and table name cannot be null." in error.message
        try:
            submit_for_cleanup(client, CompactionRequest(dbname=db, tablename="t",
                                                         type=CompactionType.MAJOR), -1, 9)
            raise AssertionError("a negative write id was accepted")
        except MetaException as error:
            assert "is negative" in error.message
        assert len(shown(client, db)) == 4


def test_abort_compactions_answers_per_id_with_hives_texts(server):
    db = unique_name("compact")
    with connected(server) as client:
        queued = client.compact2(CompactionRequest(dbname=db, tablename="t", partitionname="p=1",
                                                   type=CompactionType.MAJOR))
        call_or_skip_on_reference(server, submit_for_cleanup, client, CompactionRequest(
            dbname=db, tablename="t", partitionname="p=2", type=CompactionType.MINOR), 2, 3)
        cleaning = max(shown(client, db))
        unknown = cleaning + 1_000_000
        answers = abort_compactions(client, [queued.id, cleaning, unknown])
        assert answers == {
            queued.id: ("Success", "Successfully aborted compaction"),
            cleaning: ("Error",
                       "Error while aborting compaction as compaction is in state-ready for cleaning"),
            unknown: ("Error", "No Such Compaction Id Available"),
        }
        element = shown(client, db)[queued.id]
        assert element.state == "aborted"
        assert element.errorMessage == "Compaction Aborted by Abort Comapction request."
        assert abort_compactions(client, [queued.id]) == {
            queued.id: ("Error", "Error while aborting compaction as compaction is in state-aborted")}
        again = client.compact2(CompactionRequest(dbname=db, tablename="t", partitionname="p=1",
                                                  type=CompactionType.MAJOR))
        assert again.accepted and again.id > cleaning
        assert abort_compactions(client, []) == {}
