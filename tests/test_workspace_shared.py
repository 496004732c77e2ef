"""One workspace, several processes: a server sees what another server (or `triage review --unlearn`)
learns in the same workspace file, at its next request."""

from test_review_team import write_corpus

from triage.review_workspace import Workspace, open_synced

TEXTS = ["slt zorglub on mange ?", "tu as vu zorglub hier", "on se voit demain"]


def test_a_name_another_server_learns_is_in_this_servers_proposals_and_no_mark(tmp_path):
    path = tmp_path / "ws.sqlite"
    opened, _ = open_synced(write_corpus(tmp_path / "c.csv", TEXTS), path, audit=0)
    opened.close()
    with Workspace.open(path) as server, Workspace.open(path) as other:
        assert server.item("1").proposal == []  # the server has read the learnt entries (none)
        preview = other.preview("zorglub", "name")
        other.learn("zorglub", kind="name", scope="corpus", reviewer="bob", tag="SUR", confirm=True,
                    digest=preview["digest"])
        assert other.item("1").proposal == [[4, 11, "SUR"]]  # the learning process sees it
        assert server.item("1").proposal == [[4, 11, "SUR"]]  # the running server sees it too
        # Accepting the proposal with the learnt name marks nothing: the name was the proposal's.
        server.decide("1", label="TA", spans=server.item("1").proposal, reviewer="ana")
        assert server.taught() == [{"spelling": "zorglub", "tag": "SUR", "learnt": True, "marked": 0, "messages": 2}]
        other.unlearn(other.learnt()[0]["id"], reviewer="bob")
        assert server.item("2").proposal == []  # the unlearning is seen too
