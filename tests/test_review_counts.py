"""Counts that read right: the queue's progress as "0 / N decided", the audit sample apart."""

from conftest import succeeded
from test_release_datasheet import queued_corpus

from triage.review_workspace import Workspace


def test_the_report_counts_the_queue_and_the_audit_apart(cli, tmp_path):
    classified, ws, _ = queued_corpus(cli, tmp_path)
    with Workspace.open(ws) as opened:
        queue = opened.items(kind="queue", limit=100)
        audit = opened.items(kind="audit", limit=100)
        opened.decide(queue[0].id, label="TA" if queue[0].proposal else "NTA", spans=queue[0].proposal,
                      reviewer="lea")
    result = cli("review", classified, "--workspace", ws, "--report")
    succeeded(result)
    assert audit, "the demo list has an audit sample"
    assert f"queue: 1 / {len(queue):,} decided" in result.output
    assert (f"audit sample: 0 / {len(audit):,} decided" if audit else "audit sample: none") in result.output
