"""Consistency across the corpus before a release: listed, decided once, applied by the release."""

import csv
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
