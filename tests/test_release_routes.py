"""A release reveals nothing through a side route: no digest a dictionary search reverses, and
never a new corpus beside the datasheet of an older one."""

import csv
import hashlib
import json
import re
from pathlib import Path

import pytest

from triage.review_workspace import Workspace

TEXTS = ["coucou Zorglubine tu viens ce soir ?", "ok merci beaucoup", "Salut Bertrand rappelle moi",
         "zorglubiiine arrive a 8h", "je mange des pates", "on se voit demain a la gare"]


def _corpus(tmp_path: Path) -> Path:
    corpus = tmp_path / "sms.csv"
    with open(corpus, "w", encoding="utf-8", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["id", "text"])
        writer.writerows([str(i), text] for i, text in enumerate(TEXTS))
    return corpus


def _hexes(text: str) -> set[str]:
    return set(re.findall(r"[0-9a-f]{12,64}", text))


def _reversible(digests: set[str], names: list[str]) -> list[str]:
    """The names a dictionary search finds behind one of `digests` (a digest or its 12-character
    prefix), trying each name as a file of one line, as a line of a list and as a taught entry."""
    found = []
    for name in names:
        for form in (name, f"{name}\n", f"{name}\r\n", f"{name}\tPRE\t0", f"{name}\tNOM\t0", f"{name}\t\t0"):
            digest = hashlib.sha256(form.encode("utf-8")).hexdigest()
            if digest in digests or digest[:12] in digests or digest[:16] in digests:
                found.append(name)
    return found


@pytest.fixture
def released_with_names(cli, tmp_path):
    """A corpus classified with one known name, its queue decided by a reviewer who hid Bertrand,
    classified again into the workspace (which then hides what the reviewer taught) and released."""
    corpus, classified, ws = _corpus(tmp_path), tmp_path / "c.csv", tmp_path / "ws.sqlite"
    known = tmp_path / "participants.txt"
    known.write_text("Zorglubine\n", encoding="utf-8")
    assert cli("classify", corpus, "-o", classified, "--workspace", ws, "--no-chart",
               "--known-names", known).exit_code == 0
    with Workspace.open(ws) as opened:
        opened.decide("2", label="TA", spans=[[6, 14, "PRE"]], reviewer="ana")  # Bertrand
        for item in opened.items(kind="queue", limit=100):
            if item.id != "2":
                opened.decide(item.id, label="TA" if item.proposal else "NTA", spans=item.proposal, reviewer="ana")
    result = cli("classify", corpus, "-o", classified, "--workspace", ws, "--no-chart", "--known-names", known,
                 "--force")
    assert result.exit_code == 0, result.output
    with Workspace.open(ws) as opened:
        for item in opened.items(kind="queue", limit=100):
            if item.status != "decided":
                opened.decide(item.id, label="TA" if item.proposal else "NTA", spans=item.proposal, reviewer="ana")
    out = tmp_path / "release.csv"
    result = cli("release", classified, "--workspace", ws, "-o", out, "--inconsistent-ok", "--withhold-undecided")
    assert result.exit_code == 0, result.output
    return out, known, ws


def test_the_datasheet_counts_the_known_and_taught_names_and_publishes_no_digest_of_them(released_with_names):
    out, known, ws = released_with_names
    markdown = out.with_name("release.datasheet.md").read_text("utf-8")
    sheet_text = out.with_name("release.datasheet.json").read_text("utf-8")
    sheet = json.loads(sheet_text)
    assert sheet["classify"]["known_names"]["names"] >= 2  # the file's name and what the reviewer taught
    assert "sha256" not in sheet["classify"]["known_names"]
    assert re.search(r"\d+ known names from participants\.txt and the review workspace hidden", markdown)
    digests = _hexes(markdown) | _hexes(sheet_text)
    whole_file = hashlib.sha256(known.read_bytes()).hexdigest()
    assert whole_file not in digests and whole_file[:12] not in digests
    assert not _reversible(digests, ["Zorglubine", "Bertrand", "zorglubine", "bertrand"])
    from triage.seekhide.known import taught_names

    with Workspace.open(ws) as opened:
        taught = taught_names(opened.taught_names(), "the review workspace")
    assert taught is not None and taught.sha256 not in digests and taught.sha256[:12] not in digests


def test_an_older_record_with_a_digest_of_the_names_is_released_without_it(released_with_names, cli, tmp_path):
    out, known, ws = released_with_names
    digest = hashlib.sha256(known.read_bytes()).hexdigest()
    with Workspace.open(ws) as opened:
        settings = opened.classify_settings()
        settings["known_names"] = {"file": "participants.txt", "sha256": digest, "names": 1}
        opened.record_classify(settings)
    again = tmp_path / "again.csv"
    result = cli("release", tmp_path / "c.csv", "--workspace", ws, "-o", again, "--inconsistent-ok",
                 "--withhold-undecided")
    assert result.exit_code == 0, result.output
    for name in ("again.datasheet.md", "again.datasheet.json"):
        text = (tmp_path / name).read_text("utf-8")
        assert digest not in text and digest[:12] not in text
    assert json.loads((tmp_path / "again.datasheet.json").read_text("utf-8"))["classify"]["known_names"] == {
        "file": "participants.txt", "names": 1}
