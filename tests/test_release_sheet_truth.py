"""The datasheet states what is true: every reviewer route credited, reviewers named as the team
chose (a pseudonym by default), double review as marked and decided by both, dates as the corpus
writes them, and only the columns the team named."""

import csv
import json
import re
from pathlib import Path

import pytest

from conftest import succeeded
from test_release_datasheet import fill, queued_corpus, released, write_corpus

import triage
from triage.errors import BadOption
from triage.review_workspace import Workspace


def test_a_spreadsheet_reviewers_imported_decisions_are_credited(cli, tmp_path):
    classified, ws, queue = queued_corpus(cli, tmp_path)
    succeeded(cli("review", classified, "--workspace", ws, "--import-queue", fill(queue), "--reviewer", "Marie"))
    succeeded(cli("release", classified, "--workspace", ws, "-o", tmp_path / "corpus.csv"))
    _, sheet, markdown = released(tmp_path)
    assert sheet["messages"]["reviewer"] == 5
    assert [(r["name"], r["decisions"]) for r in sheet["review"]["reviewers"]] == [("reviewer 1", 5)]
    assert "| reviewer 1 | 5 |" in markdown and "Marie" not in markdown


def test_reviewers_are_pseudonyms_by_default_and_one_with_no_decision_is_not_published(cli, tmp_path):
    classified, ws, _ = queued_corpus(cli, tmp_path)
    with Workspace.open(ws) as opened:
        items = opened.items(kind="queue", limit=100)
        opened.skip(items[0].id, reviewer="root")  # a skip only: no decision
        for n, item in enumerate(items):
            opened.decide(item.id, label="TA" if item.proposal else "NTA", spans=item.proposal,
                          reviewer="lea" if n < 2 else "omar")
    succeeded(cli("release", classified, "--workspace", ws, "-o", tmp_path / "corpus.csv"))
    _, sheet, markdown = released(tmp_path)
    assert [(r["name"], r["decisions"]) for r in sheet["review"]["reviewers"]] == [("reviewer 1", 2), ("reviewer 2", 3)]
    text = json.dumps(sheet["review"]) + markdown.split("## Review")[1].split("\n## ")[0]
    assert not re.search(r"\b(root|lea|omar)\b", text)
    # The team may publish the names they reviewed under.
    succeeded(cli("release", classified, "--workspace", ws, "-o", tmp_path / "named.csv", "--reviewer-names"))
    _, sheet, markdown = released(tmp_path, "named")
    assert [(r["name"], r["decisions"]) for r in sheet["review"]["reviewers"]] == [("lea", 2), ("omar", 3)]
    assert "root" not in json.dumps(sheet["review"]) + markdown.split("## Review")[1].split("\n## ")[0]


def test_the_api_names_reviewers_as_pseudonyms_too(cli, tmp_path):
    classified, ws, _ = queued_corpus(cli, tmp_path)
    with Workspace.open(ws) as opened:
        for item in opened.items(kind="queue", limit=100):
            opened.decide(item.id, label="TA" if item.proposal else "NTA", spans=item.proposal, reviewer="root")
    summary = triage.release(classified, workspace=ws)
    assert [r["name"] for r in summary.datasheet["review"]["reviewers"]] == ["reviewer 1"]


def test_double_review_is_stated_as_marked_and_decided_by_both(cli, tmp_path):
    classified, ws, _ = queued_corpus(cli, tmp_path)
    with Workspace.open(ws) as opened:
        marked = opened.mark_double(1.0)
        items = opened.items(kind="queue", limit=100)
        for item in items:
            for who in ("lea", "omar") if item.id == items[0].id else ("lea",):
                opened.decide(item.id, label="TA" if item.proposal else "NTA", spans=item.proposal, reviewer=who)
    succeeded(cli("release", classified, "--workspace", ws, "-o", tmp_path / "corpus.csv", "--allow-disagreements"))
    _, _, markdown = released(tmp_path)
    assert marked > 1
    stated = markdown.split("Double review: ")[1].split(". Labels")[0]
    assert stated.startswith(f"{marked:,} messages marked (") and stated.endswith("1 decided by both reviewers, blind")
    assert "No double review" not in markdown


FRENCH_DATES = [("1", "d1", "20 sept. 2011 23:23:25", "slt Julie tu viens ce soir ?"),
                ("2", "d1", "3 févr. 2012 08:01:00", "ok a demain bisous"),
                ("3", "d2", "1 août 2011 12:00:00", "bonne nuit a toi"),
                ("4", "d2", "15 déc. 2011 09:30:00", "je mange des pates")]


def test_the_88milsms_date_form_is_read_with_and_without_date_column(cli, tmp_path):
    source = write_corpus(tmp_path / "sms.csv", FRENCH_DATES)
    classified, ws = tmp_path / "c.csv", tmp_path / "ws.sqlite"
    succeeded(cli("classify", source, "-o", classified, "--no-chart", "--workspace", ws))
    for name, extra in (("auto", ()), ("named", ("--date-column", "date"))):
        succeeded(cli("release", classified, "--workspace", ws, "-o", tmp_path / f"{name}.csv",
                      "--withhold-undecided", *extra))
        _, sheet, _ = released(tmp_path, name)
        period = sheet["composition"]["period"]
        withheld = sheet["messages"]["withheld_undecided"]
        assert period["undated_messages"] == 0, period
        assert period["dated_messages"] == 4 - withheld


def test_a_french_abbreviated_date_is_parsed():
    from triage.publication.datasheet import _parse_date

    assert str(_parse_date("20 sept. 2011 23:23:25")) == "2011-09-20"
    assert str(_parse_date("3 févr. 2012 08:01:00")) == "2012-02-03"
    assert str(_parse_date("1 août 2011")) == "2011-08-01"
    assert str(_parse_date("15 DÉC. 2011 09:30")) == "2011-12-15"
    assert str(_parse_date("2 juin 2011 10:00:00")) == "2011-06-02"


GOLD = [("1", "d1", "TA", "[[4, 9, \"PRE\"]]", "slt Julie tu viens ce soir ?"),
        ("2", "d1", "NTA", "[]", "ok a demain bisous"),
        ("3", "d2", "NTA", "[]", "bonne nuit a toi")]


def _gold_corpus(cli, tmp_path: Path) -> tuple[Path, Path]:
    source = tmp_path / "gold.csv"
    with source.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["id", "donor", "label", "spans", "text"])
        writer.writerows(GOLD)
    classified, ws = tmp_path / "c.csv", tmp_path / "ws.sqlite"
    succeeded(cli("classify", source, "-o", classified, "--no-chart", "--workspace", ws))
    return classified, ws


def test_release_publishes_id_and_text_unless_columns_are_named(cli, tmp_path):
    classified, ws = _gold_corpus(cli, tmp_path)
    succeeded(cli("release", classified, "--workspace", ws, "-o", tmp_path / "corpus.csv", "--withhold-undecided"))
    rows, sheet, _ = released(tmp_path)
    assert list(rows[0]) == ["id", "text"]
    succeeded(cli("release", classified, "--workspace", ws, "-o", tmp_path / "donor.csv", "--withhold-undecided",
                  "--columns", "donor"))
    rows, _, _ = released(tmp_path, "donor")
    assert list(rows[0]) == ["id", "donor", "text"]
    frame = triage.release(classified, workspace=ws, withhold_undecided=True).corpus
    assert list(frame.columns) == ["id", "text"]


def test_gold_columns_are_never_published_without_their_own_option(cli, tmp_path):
    classified, ws = _gold_corpus(cli, tmp_path)
    result = cli("release", classified, "--workspace", ws, "-o", tmp_path / "corpus.csv", "--withhold-undecided",
                 "--columns", "donor,spans")
    assert result.exit_code != 0 and "spans" in result.output and "--gold-columns" in result.output
    assert not (tmp_path / "corpus.csv").exists()

    with pytest.raises(BadOption, match="label"):
        triage.release(classified, workspace=ws, withhold_undecided=True, columns="label")
    succeeded(cli("release", classified, "--workspace", ws, "-o", tmp_path / "gold_out.csv", "--withhold-undecided",
                  "--columns", "label", "--gold-columns"))
    rows, _, _ = released(tmp_path, "gold_out")
    assert list(rows[0]) == ["id", "label", "text"]


def test_the_datasheet_states_the_encoding_and_delimiter_found(cli, tmp_path):
    source = tmp_path / "sms.csv"
    source.write_bytes("id;text\n1;slt Julie ça va ?\n2;ok à demain\n3;bonne nuit\n".encode("cp1252"))
    classified, ws = tmp_path / "c.csv", tmp_path / "ws.sqlite"
    succeeded(cli("classify", source, "-o", classified, "--no-chart", "--workspace", ws))
    succeeded(cli("release", classified, "--workspace", ws, "-o", tmp_path / "corpus.csv", "--withhold-undecided"))
    _, sheet, markdown = released(tmp_path)
    reading = sheet["sources"]["input"]["read"]
    assert reading["format"] == "csv" and reading["delimiter"] == ";"
    assert reading["encoding"].lower().replace("-", "") in ("cp1252", "windows1252", "latin1", "iso88591")
    assert f"read as csv, encoding {reading['encoding']}, delimiter ';'" in markdown
    frame = triage.release(classified, workspace=ws, withhold_undecided=True)
    assert frame.datasheet["sources"]["input"]["read"] == reading


def test_a_second_output_format_never_takes_the_first_ones_datasheet(cli, tmp_path):
    classified, ws, _ = queued_corpus(cli, tmp_path)
    with Workspace.open(ws) as opened:
        for item in opened.items(kind="queue", limit=100):
            opened.decide(item.id, label="TA" if item.proposal else "NTA", spans=item.proposal, reviewer="lea")
    succeeded(cli("release", classified, "--workspace", ws, "-o", tmp_path / "corpus.csv"))
    before = (tmp_path / "corpus.datasheet.json").read_bytes()
    for extra in ((), ("--force",)):
        result = cli("release", classified, "--workspace", ws, "-o", tmp_path / "corpus.jsonl", *extra)
        assert result.exit_code != 0 and "corpus.datasheet.md" in result.output and "corpus.csv" in result.output
        assert not (tmp_path / "corpus.jsonl").exists()
    assert (tmp_path / "corpus.datasheet.json").read_bytes() == before
    succeeded(cli("release", classified, "--workspace", ws, "-o", tmp_path / "corpus-jsonl.jsonl"))
    assert json.loads((tmp_path / "corpus-jsonl.datasheet.json").read_text())["sources"]["release"]["file"] == \
        "corpus-jsonl.jsonl"
    succeeded(cli("release", classified, "--workspace", ws, "-o", tmp_path / "corpus.csv", "--force"))  # its own
