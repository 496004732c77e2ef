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
    """A corpus classified with one known name, its queue decided by a reviewer who hid Bertrand and
    learnt it as a name, classified again into the workspace (which then hides what the reviewer
    taught) and released."""
    corpus, classified, ws = _corpus(tmp_path), tmp_path / "c.csv", tmp_path / "ws.sqlite"
    known = tmp_path / "participants.txt"
    known.write_text("Zorglubine\n", encoding="utf-8")
    assert cli("classify", corpus, "-o", classified, "--workspace", ws, "--no-chart",
               "--known-names", known).exit_code == 0
    with Workspace.open(ws) as opened:
        opened.decide("2", label="TA", spans=[[6, 14, "PRE"]], reviewer="ana")  # Bertrand
        opened.learn("Bertrand", kind="name", scope="corpus", reviewer="ana", tag="PRE")
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


# ---------------------------------------------------------------- the corpus and its datasheets together


@pytest.fixture
def decided(cli, tmp_path):
    corpus, classified, ws = _corpus(tmp_path), tmp_path / "c.csv", tmp_path / "ws.sqlite"
    assert cli("classify", corpus, "-o", classified, "--workspace", ws, "--no-chart").exit_code == 0
    with Workspace.open(ws) as opened:
        for item in opened.items(kind="queue", limit=100):
            opened.decide(item.id, label="TA" if item.proposal else "NTA", spans=item.proposal, reviewer="ana")
    return classified, ws


@pytest.mark.parametrize("stop_at", [0, 1, 2])
def test_an_interrupted_release_never_leaves_a_new_corpus_beside_an_older_datasheet(cli, decided, tmp_path,
                                                                                      monkeypatch, stop_at):
    from triage.io import outputs

    classified, ws = decided
    out = tmp_path / "release.csv"
    sheet_json, sheet_md = tmp_path / "release.datasheet.json", tmp_path / "release.datasheet.md"
    result = cli("release", classified, "--workspace", ws, "-o", out, "--inconsistent-ok")
    assert result.exit_code == 0, result.output
    before = {path: path.read_bytes() for path in (out, sheet_json, sheet_md)}
    real, moves = outputs.os.replace, []

    def replacing(source, destination):
        if len(moves) == stop_at:
            raise KeyboardInterrupt
        moves.append(destination)
        return real(source, destination)

    monkeypatch.setattr(outputs.os, "replace", replacing)
    with pytest.raises(KeyboardInterrupt):
        from triage.publication.corpus import run_release

        run_release(classified, out, workspace=ws, style="pseudonyms", force=True, inconsistent_ok=True)
    monkeypatch.setattr(outputs.os, "replace", real)
    assert out.read_bytes() != before[out] or stop_at == 0
    if out.read_bytes() != before[out]:  # the new corpus: no datasheet of the older one beside it
        for path in (sheet_json, sheet_md):
            assert not path.exists() or path.read_bytes() != before[path]
        if sheet_json.exists():
            released = hashlib.sha256(out.read_bytes()).hexdigest()
            assert json.loads(sheet_json.read_text("utf-8"))["sources"]["release"]["sha256"] == released
    else:  # the older corpus, with its own datasheet or none
        assert all(not path.exists() or path.read_bytes() == before[path] for path in (sheet_json, sheet_md))


def test_a_release_interrupted_while_writing_its_datasheet_changes_nothing(cli, decided, tmp_path, monkeypatch):
    from triage.publication import corpus as release_corpus

    classified, ws = decided
    out = tmp_path / "release.csv"
    assert cli("release", classified, "--workspace", ws, "-o", out, "--inconsistent-ok").exit_code == 0
    files = sorted(tmp_path.glob("release*"))
    before = {path: path.read_bytes() for path in files}

    def interrupted(sheet):
        raise KeyboardInterrupt

    monkeypatch.setattr(release_corpus, "datasheet_markdown", interrupted)
    with pytest.raises(KeyboardInterrupt):
        release_corpus.run_release(classified, out, workspace=ws, style="pseudonyms", force=True,
                                   inconsistent_ok=True)
    assert {path: path.read_bytes() for path in sorted(tmp_path.glob("release*"))} == before
    assert not list(tmp_path.glob(".*.tmp"))


# ---------------------------------------------------------------- ids stay distinct


@pytest.mark.parametrize("style", ["tags", "pseudonyms", "surrogates"])
def test_released_ids_stay_distinct_whatever_the_style_hides_in_them(cli, tmp_path, style):
    ids = ["sophie_1", "thomas_1", "Sophie_1", "julien_2", "martin_2", "<PRE_6>_1"]
    corpus = tmp_path / "sms.csv"
    with open(corpus, "w", encoding="utf-8", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["id", "text"])
        writer.writerows([ident, text] for ident, text in zip(ids, TEXTS))
    classified, ws, out = tmp_path / "c.csv", tmp_path / "ws.sqlite", tmp_path / "r.csv"
    assert cli("classify", corpus, "-o", classified, "--workspace", ws, "--no-chart").exit_code == 0
    result = cli("release", classified, "--workspace", ws, "-o", out, "--style", style, "--withhold-undecided",
                 "--inconsistent-ok")
    assert result.exit_code == 0, result.output
    released = [row["id"] for row in csv.DictReader(open(out, encoding="utf-8"))]
    assert len(set(released)) == len(released), released
    assert not any("sophie" in ident.lower() or "thomas" in ident.lower() for ident in released), released
    sheet = json.loads(out.with_name("r.datasheet.json").read_text("utf-8"))
    changed = sum("~" in ident for ident in released)
    assert sheet["ids_made_distinct"] == changed
    if style == "tags":
        assert changed and "so every id stays distinct" in out.with_name("r.datasheet.md").read_text("utf-8")


def test_distinct_ids_suffixes_only_the_repeats_and_never_makes_another_equal():
    from triage.publication.corpus import distinct_ids

    records = [["<PRE_6>_1", "a"], ["<PRE_6>_1", "b"], ["<PRE_6>_1~2", "c"], ["<PRE_6>_1", "d"], ["x", "e"]]
    assert distinct_ids(records, 0) == 2
    assert [r[0] for r in records] == ["<PRE_6>_1", "<PRE_6>_1~3", "<PRE_6>_1~2", "<PRE_6>_1~4", "x"]


# ---------------------------------------------------------------- the other columns hide the known names


def test_the_other_columns_hide_the_known_names_and_what_reviewers_taught(cli, tmp_path):
    corpus = tmp_path / "sms.csv"
    with open(corpus, "w", encoding="utf-8", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["id", "sender", "text"])
        writer.writerows([str(i), sender, text] for i, (sender, text) in enumerate(zip(
            ["de zorglubiiine", "tel de bibouchka", "ok", "vu par zorglubinne", "ok", "ok"], TEXTS)))
    known = tmp_path / "participants.txt"
    known.write_text("Zorglubine\n", encoding="utf-8")
    classified, ws, out = tmp_path / "c.csv", tmp_path / "ws.sqlite", tmp_path / "r.csv"
    assert cli("classify", corpus, "-o", classified, "--workspace", ws, "--no-chart",
               "--known-names", known).exit_code == 0
    with Workspace.open(ws) as opened:
        opened.learn("Bibouchka", kind="name", scope="corpus", reviewer="ana")
    result = cli("release", classified, "--workspace", ws, "-o", out, "--withhold-undecided", "--inconsistent-ok",
                 "--columns", "sender")
    assert result.exit_code == 0, result.output
    senders = " ".join(row["sender"] for row in csv.DictReader(open(out, encoding="utf-8"))).lower()
    assert "zorglub" not in senders and "bibouchka" not in senders, senders
