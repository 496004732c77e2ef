"""Consistency across the corpus before a release: listed, decided once, applied by the release."""

import csv
from collections import Counter
import json
from pathlib import Path

import pytest
from conftest import failed, succeeded
from starlette.testclient import TestClient

from triage.review_workspace import Workspace
from triage.review_workspace.consistency import find_cases
from triage.review_workspace.server import Settings, create_app

# Invented messages, all queued (budget 1): the reviewer's spans decide what is hidden.
TEXTS = {
    "1": "slt c'est Julie, tu viens ce soir ?",
    "2": "julie m'a dit que c'etait annule",
    "3": "rdv avec Martin devant la gare",
    "4": "M. Martin a appele pour le devis",
    "5": "ok a demain",
}
SPANS = {"1": [[10, 15, "PRE"]], "2": [], "3": [[9, 15, "PRE"]], "4": [[3, 9, "NOM"]], "5": []}


def corpus(cli, tmp_path: Path) -> tuple[Path, Path]:
    source = tmp_path / "sms.csv"
    with source.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["id", "text"])
        writer.writerows(TEXTS.items())
    classified, ws = tmp_path / "sms.classified.csv", tmp_path / "sms.review.sqlite"
    succeeded(cli("classify", source, "-o", classified, "--no-chart", "--workspace", ws, "--expert-budget", "1"))
    with Workspace.open(ws) as opened:
        for ident, spans in SPANS.items():
            opened.decide(ident, label="TA" if spans else "NTA", spans=spans, reviewer="ana")
    return classified, ws


def texts_of(path: Path) -> dict[str, str]:
    with path.open(newline="", encoding="utf-8") as handle:
        return {row["id"]: row["text"] for row in csv.DictReader(handle)}


def test_a_spelling_hidden_and_readable_and_a_spelling_with_two_tags_are_listed(cli, tmp_path):
    classified, ws = corpus(cli, tmp_path)
    with Workspace.open(ws) as opened:
        cases = {(c["kind"], c["key"]): c for c in opened.consistency()}
    assert set(cases) == {("mixed", "julie"), ("tags", "martin")}
    julie = cases["mixed", "julie"]
    assert (julie["hidden"], julie["readable"], julie["decision"]) == (1, 1, None)
    assert {(e["id"], e["hidden"]) for e in julie["examples"]} == {("1", True), ("2", False)}
    assert cases["tags", "martin"]["tags"] == {"PRE": 1, "NOM": 1}
    listed = cli("review", classified, "--workspace", ws, "--consistency")
    succeeded(listed)
    assert "2 cases, 2 to decide" in listed.output and "'julie': hidden in 1 message, readable in 1 message" in listed.output


def test_release_refuses_undecided_cases_unless_told(cli, tmp_path):
    classified, ws = corpus(cli, tmp_path)
    failed(cli("release", classified, "--workspace", ws, "-o", tmp_path / "corpus.csv"), 1,
           "2 consistency cases are undecided", "mixed 'julie'", "--consistency", "--inconsistent-ok")
    assert not (tmp_path / "corpus.csv").exists()
    succeeded(cli("release", classified, "--workspace", ws, "-o", tmp_path / "corpus.csv", "--inconsistent-ok"))
    sheet = json.loads((tmp_path / "corpus.datasheet.json").read_text("utf-8"))
    assert sheet["consistency"] == {"cases": 2, "undecided": 2, "decided": {}}
    assert "2 left undecided (released with --inconsistent-ok)" in (tmp_path / "corpus.datasheet.md").read_text("utf-8")


@pytest.mark.parametrize("style", ["tags", "pseudonyms"])
def test_each_case_is_decided_once_and_the_release_applies_it(cli, tmp_path, style):
    classified, ws = corpus(cli, tmp_path)
    with Workspace.open(ws) as opened:
        opened.decide_consistency("mixed", "julie", "hide", reviewer="ana")
        opened.decide_consistency("tags", "martin", "same", reviewer="ana")
        assert all(c["decision"] for c in opened.consistency())
    succeeded(cli("release", classified, "--workspace", ws, "-o", tmp_path / "corpus.csv", "--style", style))
    texts = texts_of(tmp_path / "corpus.csv")
    assert "julie" not in texts["2"].lower()  # hidden everywhere now
    if style == "pseudonyms":  # one entity, one pseudonym
        assert "<PRE_2>" in texts["3"] and "<PRE_2>" in texts["4"] and "NOM" not in texts["4"]
    sheet = json.loads((tmp_path / "corpus.datasheet.json").read_text("utf-8"))
    assert sheet["consistency"]["decided"] == {"mixed hide": 1, "tags same": 1}
    markdown = (tmp_path / "corpus.datasheet.md").read_text("utf-8")
    assert "- Consistency: 2 cases (" in markdown and "decided: 1 mixed hide, 1 tags same" in markdown
    assert sheet["hidden_items_by_tag"] == {"PRE": 4}


def test_keeping_a_spelling_readable_shows_it_everywhere(cli, tmp_path):
    classified, ws = corpus(cli, tmp_path)
    with Workspace.open(ws) as opened:
        opened.decide_consistency("mixed", "julie", "readable", reviewer="ana")
        opened.decide_consistency("tags", "martin", "different", reviewer="ana")
    succeeded(cli("release", classified, "--workspace", ws, "-o", tmp_path / "corpus.csv"))
    texts = texts_of(tmp_path / "corpus.csv")
    assert texts["1"] == TEXTS["1"] and "<NOM_6>" in texts["4"]


def test_homonyms_leave_every_mention_as_the_review_left_it(cli, tmp_path):
    classified, ws = corpus(cli, tmp_path)
    with Workspace.open(ws) as opened:
        opened.decide_consistency("mixed", "julie", "homonyms", reviewer="ana")
        opened.decide_consistency("tags", "martin", "different", reviewer="ana")
    succeeded(cli("release", classified, "--workspace", ws, "-o", tmp_path / "corpus.csv"))
    texts = texts_of(tmp_path / "corpus.csv")
    assert "Julie" not in texts["1"] and texts["2"] == TEXTS["2"]  # hidden where it was, readable where it was


def test_a_surrogate_equal_to_a_readable_form_is_listed_and_drawn_again(cli, tmp_path):
    classified, ws = corpus(cli, tmp_path)
    with Workspace.open(ws) as opened:
        opened.decide_consistency("mixed", "julie", "hide", reviewer="ana")
        opened.decide_consistency("tags", "martin", "different", reviewer="ana")
        opened.save_surrogate_map({("PRE", "julie"): "Gare"}, seed=0)  # an earlier release's choice
        cases = [c for c in opened.consistency() if c["kind"] == "surrogate"]
    assert [c["key"] for c in cases] == ["gare"] and cases[0]["readable"] == 1
    failed(cli("release", classified, "--workspace", ws, "-o", tmp_path / "c.csv", "--style", "surrogates"), 1,
           "surrogate 'gare'")
    with Workspace.open(ws) as opened:
        opened.decide_consistency("surrogate", "gare", "readable", reviewer="ana")
    succeeded(cli("release", classified, "--workspace", ws, "-o", tmp_path / "c.csv", "--style", "surrogates"))
    texts = texts_of(tmp_path / "c.csv")
    assert "gare" in texts["3"] and "Gare" not in texts["1"]  # the place stays; Julie has another surrogate
    with Workspace.open(ws) as opened:
        assert opened.surrogate_map()[("PRE", "julie")] != "Gare"


def test_the_cases_over_http(cli, tmp_path):
    _, ws = corpus(cli, tmp_path)
    with Workspace.open(ws) as opened:
        app = create_app(opened, Settings(token="t0ken", port=8124, reviewer="léa", lexicon_dir=str(tmp_path / "lex")))
        with TestClient(app, base_url="http://127.0.0.1:8124") as client:
            client.headers["X-Triage-Token"] = "t0ken"
            listed = client.get("/api/consistency").json()
            assert {(c["kind"], c["key"]) for c in listed} == {("mixed", "julie"), ("tags", "martin")}
            assert all(c["decision"] is None for c in listed)
            wrong = client.post("/api/consistency", json={"kind": "mixed", "key": "julie", "decision": "same"})
            assert wrong.status_code == 400 and "hide or readable" in wrong.json()["error"]
            decided = client.post("/api/consistency", json={"kind": "mixed", "key": "julie", "decision": "hide"})
            assert decided.status_code == 200 and decided.json()["reviewer"] == "léa"
            after = {c["key"]: c for c in client.get("/api/consistency").json()}
            assert after["julie"]["decision"] == "hide" and after["martin"]["decision"] is None


def test_undecided_queued_messages_are_no_cases():
    from triage.review_workspace import FinalRow

    rows = [FinalRow("1", 0, "Julie vient", "TA", [[0, 5, "PRE"]], "machine"),
            FinalRow("2", 1, "julie aussi", None, [], "undecided")]
    assert find_cases(rows) == []


# ---------------------------------------------------------------- at scale: ranked, paged, decided many at once

# Invented spellings, each hidden in one message and readable in another (all queued, decided by ana).
SPELLINGS = [f"Zorb{a}{b}lix" for a in "aeiou" for b in "bcdfgh"]  # 30


def many(cli, tmp_path: Path, extra_texts=(), extra_spans=()) -> tuple[Path, Path]:
    """A corpus of len(SPELLINGS) mixed cases (each hidden once, readable once), plus the messages given."""
    texts, spans = {}, {}
    for i, word in enumerate(SPELLINGS):
        texts[f"h{i}"], spans[f"h{i}"] = f"bisous {word} a demain", [[7, 7 + len(word), "PRE"]]
        texts[f"r{i}"], spans[f"r{i}"] = f"tu as vu {word} hier", []
    for (ident, text), hidden in zip(extra_texts, extra_spans):
        texts[ident], spans[ident] = text, hidden
    source = tmp_path / "many.csv"
    with source.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["id", "text"])
        writer.writerows(texts.items())
    classified, ws = tmp_path / "many.classified.csv", tmp_path / "many.review.sqlite"
    succeeded(cli("classify", source, "-o", classified, "--no-chart", "--workspace", ws, "--expert-budget", "1"))
    with Workspace.open(ws) as opened:
        for ident, hidden in spans.items():
            opened.decide(ident, label="TA" if hidden else "NTA", spans=hidden, reviewer="ana")
    return classified, ws


def rows_of(*specs):
    """FinalRows from (id, text, spans, route)."""
    from triage.review_workspace import FinalRow

    return [FinalRow(ident, n, text, "TA" if spans else "NTA", spans, route)
            for n, (ident, text, spans, route) in enumerate(specs)]


def test_cases_are_ranked_by_the_readable_messages_no_human_read_then_by_status():
    rows = rows_of(
        ("1", "Alix vient", [[0, 4, "PRE"]], "reviewer"), ("2", "Alix aussi", [], "reviewer"),  # read by a human
        ("3", "Brune vient", [[0, 5, "PRE"]], "reviewer"), ("4", "Brune aussi", [], "machine"),  # nobody read 4
        ("5", "Cyan vient", [[0, 4, "PRE"]], "reviewer"), ("6", "cyan et cyan", [], "machine"),
        ("7", "cyan bleu", [], "machine"),  # hidden once, readable twice where no human read
    )
    cases = find_cases(rows)
    assert [c["key"] for c in cases] == ["cyan", "brune", "alix"]
    assert [(c["unreviewed"], c["readable"]) for c in cases] == [(2, 2), (1, 1), (0, 1)]
    assert cases[0]["risk"] > cases[1]["risk"] > cases[2]["risk"] > 0
    decided = find_cases(rows, decisions={("mixed", "cyan"): {"decision": "hide", "reviewer": "ana"}})
    assert [c["key"] for c in decided] == ["brune", "alix", "cyan"]  # decided after the undecided ones


def test_examples_are_distinct_messages_a_few_of_each_side():
    rows = rows_of(
        *[(f"h{i}", "bisous Rosalie", [[7, 14, "PRE"]], "reviewer") for i in range(6)],  # one text sent six times
        ("h9", "Rosalie et rosalie", [[0, 7, "PRE"], [11, 18, "PRE"]], "reviewer"),  # two mentions in one message
        *[(f"r{i}", f"rosalie numero {i}", [], "machine") for i in range(6)],
        ("r9", "ROSALIE numero 0", [], "machine"),  # the same text as r0 but for case
    )
    examples = find_cases(rows)[0]["examples"]
    hidden = [e for e in examples if e["hidden"]]
    readable = [e for e in examples if not e["hidden"]]
    assert [e["id"] for e in hidden] == ["h0", "h9"]  # the repeated text once; one mention per message
    assert len(readable) == 3 and len({e["text"].casefold() for e in readable}) == 3
    assert all(e["text"][e["start"]:e["end"]].casefold() == "rosalie" for e in examples)


def test_the_filters_find_cases_by_spelling_tag_status_and_kind():
    from triage.errors import BadOption
    from triage.review_workspace.consistency import select

    rows = rows_of(("1", "Élodie vient", [[0, 6, "PRE"]], "reviewer"), ("2", "elodie aussi", [], "machine"),
                   ("3", "Martin vient", [[0, 6, "PRE"]], "reviewer"), ("4", "M. Martin", [[3, 9, "NOM"]], "reviewer"))
    cases = find_cases(rows, decisions={("tags", "martin"): {"decision": "same", "reviewer": "ana"}})
    assert [c["key"] for c in select(cases, q="ÉLO")] == ["elodie"]  # any case, any accent
    assert [c["key"] for c in select(cases, q="elooodie")] == ["elodie"]  # letter repetitions folded
    assert [c["key"] for c in select(cases, tag="NOM")] == ["martin"]
    assert [c["key"] for c in select(cases, status="decided")] == ["martin"]
    assert [c["key"] for c in select(cases, status="undecided", kind="mixed")] == ["elodie"]
    assert select(cases, q="zzz") == []
    with pytest.raises(BadOption, match="undecided or decided"):
        select(cases, status="done")
    with pytest.raises(BadOption, match="tag must be one of"):
        select(cases, tag="XYZ")


def client_of(opened, tmp_path, reviewer="léa"):
    app = create_app(opened, Settings(token="t0ken", port=8124, reviewer=reviewer, lexicon_dir=str(tmp_path / "lex")))
    client = TestClient(app, base_url="http://127.0.0.1:8124")
    client.headers["X-Triage-Token"] = "t0ken"
    return client


def test_the_cases_are_paged_with_their_counts_over_http(cli, tmp_path):
    _, ws = many(cli, tmp_path)
    with Workspace.open(ws) as opened, client_of(opened, tmp_path) as client:
        first = client.get("/api/consistency/cases?limit=25").json()
        assert (first["total"], first["cases"], first["undecided"], len(first["items"])) == (30, 30, 30, 25)
        rest = client.get("/api/consistency/cases?offset=25&limit=25").json()
        assert len(rest["items"]) == 5
        keys = [c["key"] for c in first["items"] + rest["items"]]
        assert sorted(keys) == sorted(c.lower() for c in SPELLINGS)  # every case once, over the two pages
        assert "mentions" not in first["items"][0]  # a page carries what it shows
        found = client.get("/api/consistency/cases?q=zorbab").json()
        assert [c["key"] for c in found["items"]] == ["zorbablix"] and found["total"] == 1
        assert client.get("/api/consistency/cases?limit=1000").json()["limit"] == 100
        for bad in ("status=maybe", "kind=other", "tag=PRENOM", "offset=x", "q=" + "a" * 201):
            answer = client.get("/api/consistency/cases?" + bad)
            assert answer.status_code == 400 and len(answer.json()["error"].splitlines()) == 1, bad


def test_show_everywhere_for_every_case_shown_needs_the_previews_digest(cli, tmp_path):
    _, ws = many(cli, tmp_path)
    with Workspace.open(ws) as opened, client_of(opened, tmp_path) as client:
        preview = client.get("/api/consistency/bulk?decision=readable&limit=25").json()
        assert (preview["selected"], preview["cases"], preview["messages"]) == (25, 25, 25)
        assert (preview["readable"], preview["readable_messages"], preview["readable_tags"]) == (25, 25, {"PRE": 25})
        body = {"decision": "readable", "cases": preview["selection"]}
        refused = client.post("/api/consistency/bulk", json=body)  # no confirmation: nothing shown
        assert refused.status_code == 409 and refused.json()["preview"]["digest"] == preview["digest"]
        assert opened.consistency_decisions() == {}
        wrong = client.post("/api/consistency/bulk", json={**body, "digest": "0" * 16})
        assert wrong.status_code == 409 and wrong.json()["changed"] is True
        assert opened.consistency_decisions() == {}
        # A colleague decides one of them after the preview: the bulk decision is refused whole.
        one = preview["selection"][3]
        opened.decide_consistency(one[0], one[1], "hide", reviewer="bob")
        stale = client.post("/api/consistency/bulk", json={**body, "digest": preview["digest"]})
        assert stale.status_code == 409 and stale.json()["preview"]["cases"] == 25
        assert set(opened.consistency_decisions()) == {tuple(one)}
        again = stale.json()["preview"]
        done = client.post("/api/consistency/bulk", json={**body, "digest": again["digest"]})
        assert done.status_code == 200 and done.json()["decided"] == 25
        decided = opened.consistency_decisions()
        assert {k for k, v in decided.items() if v["decision"] == "readable"} == {tuple(p) for p in preview["selection"]}
        assert all(v["reviewer"] == "léa" for k, v in decided.items() if v["decision"] == "readable")
        after = client.get("/api/consistency/cases").json()
        assert after["undecided"] == 5 and after["items"][0]["decision"] is None  # the undecided ones come first
        bad = client.get("/api/consistency/bulk?decision=homonyms")
        assert bad.status_code == 400 and "hide or readable" in bad.json()["error"]
        for cases in ([], "x", [["mixed"]], [[1, 2]]):
            answer = client.post("/api/consistency/bulk", json={"decision": "hide", "cases": cases, "digest": "x"})
            assert answer.status_code == 400, cases


def test_a_bulk_decision_is_stored_whole_or_not_at_all(cli, tmp_path, monkeypatch):
    _, ws = many(cli, tmp_path)
    with Workspace.open(ws) as opened:
        selection = [[c["kind"], c["key"]] for c in opened.consistency()[:10]]
        preview = opened.consistency_bulk_preview("hide", selection)
        stored = Workspace._store_consistency
        calls = []

        def failing(self, *args):
            calls.append(args)
            if len(calls) == 6:
                raise OSError("disk gone")
            return stored(self, *args)

        monkeypatch.setattr(Workspace, "_store_consistency", failing)
        with pytest.raises(OSError):
            opened.decide_consistency_bulk("hide", selection, reviewer="ana", digest=preview["digest"])
        assert opened.consistency_decisions() == {}  # the five stored before the failure were rolled back
        monkeypatch.setattr(Workspace, "_store_consistency", stored)
        done = opened.decide_consistency_bulk("hide", selection, reviewer="ana", digest=preview["digest"])
        assert done["decided"] == 10 and len(opened.consistency_decisions()) == 10


def test_show_everywhere_for_one_case_needs_its_version_over_http(cli, tmp_path):
    _, ws = corpus(cli, tmp_path)
    with Workspace.open(ws) as opened, client_of(opened, tmp_path) as client:
        refused = client.post("/api/consistency", json={"kind": "mixed", "key": "julie", "decision": "readable"})
        assert refused.status_code == 409
        assert refused.json()["preview"]["readable"] == 1 and "1 hidden item readable" in refused.json()["error"]
        assert opened.consistency_decisions() == {}
        version = refused.json()["preview"]["version"]
        shown = client.post("/api/consistency", json={"kind": "mixed", "key": "julie", "decision": "readable",
                                                      "version": version})
        assert shown.status_code == 200 and opened.consistency_decisions()[("mixed", "julie")]["decision"] == "readable"


def test_the_command_line_decides_one_case_and_shows_only_with_yes(cli, tmp_path):
    classified, ws = corpus(cli, tmp_path)
    asked = cli("review", classified, "--workspace", ws, "--decide-consistency", "readable", "--spelling", "Julie")
    failed(asked, 1, "nothing was decided", "--yes")
    assert "'julie' shown everywhere: 1 hidden item becomes readable in 1 message (PRE 1)" in asked.stdout
    with Workspace.open(ws) as opened:
        assert opened.consistency_decisions() == {}
    shown = cli("review", classified, "--workspace", ws, "--decide-consistency", "readable", "--spelling", "Julie",
                "--yes", "--reviewer", "bob")
    succeeded(shown)
    assert "decided: mixed 'julie' readable by bob" in shown.output
    succeeded(cli("review", classified, "--workspace", ws, "--decide-consistency", "same", "--spelling", "martin",
                  "--reviewer", "bob"))
    with Workspace.open(ws) as opened:
        assert {k: v["decision"] for k, v in opened.consistency_decisions().items()} == {
            ("mixed", "julie"): "readable", ("tags", "martin"): "same"}
    succeeded(cli("release", classified, "--workspace", ws, "-o", tmp_path / "corpus.csv"))  # nothing left to decide
    assert texts_of(tmp_path / "corpus.csv")["1"] == TEXTS["1"]


@pytest.mark.parametrize("args, fragments", [
    (("--decide-consistency", "hide"), ("--spelling",)),
    (("--spelling", "julie"), ("--decide-consistency",)),
    (("--decide-consistency", "hide", "--spelling", "julie", "--consistency-all", "hide"), ("give one of them",)),
    (("--yes",), ("--yes confirms",)),
    (("--case-tag", "PRE"), ("--consistency or --consistency-all",)),
    (("--decide-consistency", "maybe", "--spelling", "julie"), ("hide, readable, homonyms",)),
    (("--decide-consistency", "same", "--spelling", "julie"), ("'julie' is no case decided same",)),
    (("--decide-consistency", "hide", "--spelling", "nobody"), ("no consistency case 'nobody'",)),
    (("--consistency-all", "homonyms"), ("hide or readable",)),
    (("--consistency-all", "hide", "--case-search", "zzz"), ("no consistency case found",)),
    (("--consistency", "--case-status", "maybe"), ("undecided or decided",)),
])
def test_bad_consistency_options_are_one_line(cli, tmp_path, args, fragments):
    classified, ws = corpus(cli, tmp_path)
    failed(cli("review", classified, "--workspace", ws, *args), 1, *fragments)
    with Workspace.open(ws) as opened:
        assert opened.consistency_decisions() == {}


def test_the_command_line_decides_every_case_found_after_a_preview(cli, tmp_path):
    classified, ws = many(cli, tmp_path)
    listed = cli("review", classified, "--workspace", ws, "--consistency", "--case-search", "zorba")
    succeeded(listed)
    assert listed.output.splitlines()[0] == "consistency: 6 of 30 cases found by the filters"
    asked = cli("review", classified, "--workspace", ws, "--consistency-all", "readable", "--case-search", "zorba")
    failed(asked, 1, "nothing was decided", "--yes", "6 cases")
    assert "6 cases to be shown everywhere: 6 messages change in the release" in asked.stdout
    assert "6 hidden items become readable in 6 messages (PRE 6)" in asked.stdout
    with Workspace.open(ws) as opened:
        assert opened.consistency_decisions() == {}
    done = cli("review", classified, "--workspace", ws, "--consistency-all", "readable", "--case-search", "zorba",
               "--yes", "--reviewer", "bob")
    succeeded(done)
    assert "decided: 6 cases readable by bob" in done.output
    rest = cli("review", classified, "--workspace", ws, "--consistency-all", "hide", "--yes", "--reviewer", "bob")
    succeeded(rest)  # the undecided ones only, by default
    assert "24 cases to be hidden everywhere: 24 messages change in the release" in rest.output
    with Workspace.open(ws) as opened:
        decided = Counter(v["decision"] for v in opened.consistency_decisions().values())
    assert decided == {"readable": 6, "hide": 24}
    succeeded(cli("release", classified, "--workspace", ws, "-o", tmp_path / "corpus.csv"))
    texts = texts_of(tmp_path / "corpus.csv")
    assert "Zorbablix" in texts["h0"] and "Zorbeblix" not in texts["r6"]  # shown / hidden everywhere


def test_the_cases_follow_every_change_of_the_messages_whoever_writes(cli, tmp_path):
    _, ws = many(cli, tmp_path)
    with Workspace.open(ws) as opened, client_of(opened, tmp_path) as client:
        assert client.get("/api/consistency/cases").json()["total"] == 30
        with Workspace.open(ws) as other:  # another reviewer's server hides the readable Zorbablix
            other.decide("r0", label="TA", spans=[[9, 18, "PRE"]], reviewer="bob", version=other.item("r0").version)
        keys = {c["key"] for c in opened.consistency()}
        assert len(keys) == 29 and "zorbablix" not in keys
        opened.decide("r1", label="TA", spans=[[9, 18, "PRE"]], reviewer="ana", version=opened.item("r1").version)
        assert client.get("/api/consistency/cases").json()["total"] == 28  # this server's own decision too
        page = client.get("/api/consistency/cases").json()["items"]
        client.post("/api/consistency", json={"kind": "mixed", "key": page[0]["key"], "decision": "hide",
                                              "version": page[0]["version"]})
        opened.decide("h2", label="NTA", spans=[], reviewer="ana", version=opened.item("h2").version)
        assert client.get("/api/consistency/cases").json()["total"] == 27  # a decision after a case's decision


def test_the_python_api_decides_cases_as_the_command_does(cli, tmp_path):
    import triage
    from triage.review_workspace import NotConfirmed

    classified, ws = many(cli, tmp_path)
    with pytest.raises(NotConfirmed) as refused:
        triage.review(classified, workspace=ws, consistency_all="readable", case_search="zorbu")
    assert refused.value.lines[1] == "6 hidden items become readable in 6 messages (PRE 6)"
    lines = triage.review(classified, workspace=ws, consistency_all="readable", case_search="zorbu", yes=True,
                          reviewer="bob")
    assert lines[-1] == "decided: 6 cases readable by bob"
    listed = triage.review(classified, workspace=ws, consistency=True, case_status="decided")
    assert listed[0] == "consistency: 6 of 30 cases found by the filters"
