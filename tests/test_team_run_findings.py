"""What the team run (tests/test_team_run_browser.py) found, reproduced small. Each is marked xfail
(strict): it passes, and the mark goes, once the product is fixed.

A running server does not see what another process learns in the same workspace. The documentation
lets several servers share one workspace ("SQLite's WAL lets several servers read and write the same
file") and `triage review --unlearn ID` runs beside a server; but a Workspace keeps the learnt entries in
a cache that only its own learn and unlearn reset. In the team run, a name learnt by the test process
while the lead's server ran left that server's Consistency page with a case the release does not have
(the name hidden where reviewers accepted the proposal, readable where the server did not know it
learnt), and that server's proposals did not hide the name."""

import pytest
from test_review_team import write_corpus

from triage.review_workspace import Workspace, open_synced

TEXTS = ["slt zorglub on mange ?", "tu as vu zorglub hier", "on se voit demain"]


@pytest.mark.xfail(strict=True, reason="the learnt entries are cached per Workspace: another process's learning is not seen")
def test_a_name_another_server_learns_is_in_this_servers_proposals(tmp_path):
    path = tmp_path / "ws.sqlite"
    opened, _ = open_synced(write_corpus(tmp_path / "c.csv", TEXTS), path, audit=0)
    opened.close()
    with Workspace.open(path) as server, Workspace.open(path) as other:
        assert server.item("1").proposal == []  # the server has read the learnt entries (none)
        preview = other.preview("zorglub", "name")
        other.learn("zorglub", kind="name", scope="corpus", reviewer="bob", tag="SUR", confirm=True,
                    digest=preview["digest"])
        assert other.item("1").proposal == [[4, 11, "SUR"]]  # the learning process sees it
        assert server.item("1").proposal == [[4, 11, "SUR"]]  # the running server should too
