"""The expert's work queue through real files: export, an expert's edit, apply, learning."""

from __future__ import annotations

import csv
import json
import re
from pathlib import Path

import pytest

from triage import lexicons as lexicon_module
from triage.errors import InputError, OutputExists
from triage.queue import files as queue_files
from triage.queue.files import CLASSIFIED_COLUMNS, FINAL_COLUMNS, QUEUE_COLUMNS, apply_decisions, export_queue
from triage.seekhide import DICTIONARY, SeekAndHide, code, hidden_json, stable_id

# Invented messages only (never the development corpus).
CEDRIC = "Coucou Cédric, tu as vu Zorglub ?"  # S&H TA (Cédric), Zorglub unknown
PIERRE_KON = "Pierre a appelé kon hier"  # Pierre ambiguous, kon a surname read as unknown
PIERRE = "tu connais Pierre ?"
BLURF = "ok jsp trop zblorf"  # zblorf unknown
HYPERLINK = '=HYPERLINK("http://exemple.invalid";"clic") Namrata'
SUM = "@SUM(1) wesh Gloubi"
JULIEN = "Salut Julien !"
DEMAIN = "ok à demain"


@pytest.fixture(scope="module")
def seeker(lexicons):
    return SeekAndHide(lexicons)


def combine(seekhide: str, model: str) -> str:
    """Table 2 of the paper."""
    if seekhide == "UNTAGGED":
        return model
    return seekhide if seekhide == model else "EXPERT"


def row(seeker, ident, text, model, score, decision=None, **extra) -> dict:
    result = seeker.seek(text)
    return {
        "id": ident,
        "text": text,
        "seekhide": result.label,
        "model": model,
        "score": str(score),
        "decision": decision or combine(result.label, model),
        "anonymised": result.anonymised,
        "hidden": hidden_json(result.hidden),
        "highlighted": json.dumps(result.highlighted, ensure_ascii=False),
        **extra,
    }


def write_classified(path: Path, rows: list[dict]) -> Path:
    columns = list(CLASSIFIED_COLUMNS) + [c for c in rows[0] if c not in CLASSIFIED_COLUMNS]
    with open(path, "w", encoding="utf-8", newline="") as handle:
        writer = csv.DictWriter(handle, columns)
        writer.writeheader()
        writer.writerows(rows)
    return path


def read_csv(path: Path) -> list[dict]:
    with open(path, encoding="utf-8-sig", newline="") as handle:
        return list(csv.DictReader(handle))


def write_csv(path: Path, rows: list[dict], encoding="utf-8-sig") -> Path:
    with open(path, "w", encoding=encoding, newline="") as handle:
        writer = csv.DictWriter(handle, list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    return path


@pytest.fixture
def corpus(tmp_path, seeker) -> Path:
    rows = [
        row(seeker, "1", CEDRIC, "NTA", 0.31),  # EXPERT by Table 2
        row(seeker, "2", PIERRE_KON, "TA", 0.74, "EXPERT"),  # routed to the expert by a policy
        row(seeker, "3", PIERRE, "TA", 0.58, "EXPERT"),
        row(seeker, "4", BLURF, "NTA", 0.45, "EXPERT"),
        row(seeker, "-5", HYPERLINK, "NTA", 0.2, "EXPERT"),
        row(seeker, "6", SUM, "TA", 0.9, "EXPERT"),
        row(seeker, "7", JULIEN, "TA", 0.95),
        row(seeker, "8", DEMAIN, "NTA", 0.05),
    ]
    assert rows[0]["decision"] == "EXPERT" and rows[6]["decision"] == "TA" and rows[7]["decision"] == "NTA"
    return write_classified(tmp_path / "classified.csv", rows)


# ------------------------------------------------------------------------- export


def test_export_keeps_expert_rows_most_uncertain_first(corpus, tmp_path, seeker):
    summary = export_queue(corpus, tmp_path / "queue.csv", seeker=seeker)
    queue = read_csv(tmp_path / "queue.csv")
    # |score - 0.5|: 4 -> 0.05, 3 -> 0.08, 1 -> 0.19, 2 -> 0.24, -5 -> 0.30, 6 -> 0.40
    assert [r["id"] for r in queue] == ["4", "3", "1", "2", "'-5", "6"]
    assert list(queue[0]) == list(QUEUE_COLUMNS)
    assert (summary.queued, summary.total, summary.format) == (6, 8, "csv")
    assert all(r["expert_decision"] == "" and r["expert_hide"] == "" for r in queue)


def test_ties_keep_the_input_order(tmp_path, seeker):
    rows = [row(seeker, str(i), f"salut Zorglub{'x' * i}", "NTA", score, "EXPERT")
            for i, score in enumerate([0.75, 0.25, 0.9, 0.75])]
    path = write_classified(tmp_path / "c.csv", rows)
    export_queue(path, tmp_path / "q.jsonl", seeker=seeker)
    ids = [json.loads(line)["id"] for line in (tmp_path / "q.jsonl").read_text("utf-8").splitlines()]
    assert ids == ["0", "1", "3", "2"]


def test_risk_column_orders_the_queue_when_present(tmp_path, seeker):
    rows = [
        row(seeker, "a", CEDRIC, "NTA", 0.50, "EXPERT", risk="0.1"),
        row(seeker, "b", BLURF, "NTA", 0.99, "EXPERT", risk="0.9"),
        row(seeker, "c", PIERRE, "NTA", 0.70, "EXPERT", risk="0.5"),
        row(seeker, "d", DEMAIN, "NTA", 0.50, "NTA", risk="1.0"),  # not EXPERT: not queued
    ]
    path = write_classified(tmp_path / "c.csv", rows)
    export_queue(path, tmp_path / "q.csv", seeker=seeker)
    queue = read_csv(tmp_path / "q.csv")
    assert [r["id"] for r in queue] == ["b", "c", "a"]  # by risk, not by score
    assert queue[0]["why"].endswith("risk=0.90")


@pytest.mark.parametrize("fmt", ["csv", "jsonl", "html", "xlsx"])
def test_a_queue_made_a_batch_at_a_time_is_the_queue_made_at_once(corpus, tmp_path, seeker, monkeypatch, fmt):
    """The rows are held lean and parsed again in the queue's order a batch at a time: batches of
    one row give the same file, bytes or cells, as one batch of them all, a cell that holds the
    character the held rows are joined by included."""
    with open(corpus, encoding="utf-8", newline="") as handle:
        classified = list(csv.DictReader(handle))
    classified[1]["text"] = classified[1]["text"].replace(" ", "\x1f", 1)
    path = write_classified(tmp_path / "joined.csv", classified)
    made = {}
    for batch in (1, 10_000):
        monkeypatch.setattr(queue_files, "QUEUE_BATCH", batch)
        made[batch] = tmp_path / f"queue-{batch}.{fmt}"
        assert export_queue(path, made[batch], seeker=seeker).queued == 6
    if fmt == "xlsx":
        import openpyxl

        one, all_ = ([[c.value for c in r] for r in openpyxl.load_workbook(made[b]).active.iter_rows()] for b in made)
        assert one == all_ and len(one) == 7
    else:
        assert made[1].read_bytes() == made[10_000].read_bytes()
    if fmt == "csv":
        assert classified[1]["text"] in {r["text"] for r in read_csv(made[1])}


def test_the_export_holds_its_rows_lean_and_parses_a_batch_at_a_time(tmp_path, seeker, monkeypatch):
    """The memory of writing a queue grows with its rows held lean (a string each), not with its
    rows parsed: 2,000 rows, written 200 at a time, stay under 2 MB of traced memory (they took
    4.4 MB parsed all at once)."""
    import tracemalloc

    texts = [row(seeker, "", f"Salut Zorglub{i} tu as vu Pierre hier soir au {i} rue des Lilas ?", "TA", 0.5)
             for i in range(20)]
    rows = [{**texts[i % 20], "id": str(i), "score": str(round((i % 97) / 97, 3)), "decision": "EXPERT"}
            for i in range(2_000)]
    path = write_classified(tmp_path / "many.csv", rows)
    monkeypatch.setattr(queue_files, "QUEUE_BATCH", 200)
    export_queue(path, tmp_path / "first.csv", seeker=seeker)  # the reasons' words labelled once
    peaks = []
    for _ in range(2):  # the smaller peak: a cache that earlier tests filled may be emptied and grown again once
        tracemalloc.start()
        try:
            assert export_queue(path, tmp_path / "queue.csv", seeker=seeker, force=True).queued == 2_000
            peaks.append(tracemalloc.get_traced_memory()[1])
        finally:
            tracemalloc.stop()
    assert min(peaks) < 2 * 2**20, f"{min(peaks) / 2**20:.1f} MB"
    assert (tmp_path / "queue.csv").read_bytes() == (tmp_path / "first.csv").read_bytes()


def test_look_at_and_why(corpus, tmp_path, seeker, lexicons):
    export_queue(corpus, tmp_path / "queue.csv", seeker=seeker)
    queue = {r["id"]: r for r in read_csv(tmp_path / "queue.csv")}
    # S&H hid Cédric while the model says NTA: a disagreement, listed with the unknown word.
    assert queue["1"]["look_at"] == "Cédric; Zorglub"
    assert queue["1"]["why"] == (
        "Seek&Hide: TA ('Cédric' first-name dictionary; 'Zorglub' unknown, capitalised); model: NTA, p=0.31"
    )
    # The model says TA: nothing hidden to argue about, only the highlighted words.
    assert queue["2"]["look_at"] == "Pierre; kon"
    assert queue["2"]["why"] == (
        "Seek&Hide: UNTAGGED ('Pierre' is a name and a word; 'kon' unknown (also a surname)); model: TA, p=0.74"
    )
    assert queue["4"]["look_at"] == "zblorf"
    assert "jsp" not in queue["4"]["why"]  # ordinary words are not listed


def test_hidden_words_are_looked_at_only_when_the_model_disagrees(tmp_path, seeker):
    rows = [row(seeker, "a", CEDRIC, "TA", 0.6, "EXPERT"), row(seeker, "b", CEDRIC, "NTA", 0.4, "EXPERT")]
    export_queue(write_classified(tmp_path / "c.csv", rows), tmp_path / "q.csv", seeker=seeker)
    queue = {r["id"]: r for r in read_csv(tmp_path / "q.csv")}
    assert queue["a"]["look_at"] == "Zorglub"
    assert queue["b"]["look_at"] == "Cédric; Zorglub"
    assert "'Cédric' first-name dictionary" in queue["a"]["why"]  # still explains Seek&Hide's TA


def test_a_capitalised_guess_is_explained(tmp_path, seeker):
    # 'Blurf' is one letter from 'bluff'; Seek&Hide highlights such a guess when capitalised.
    record = row(seeker, "1", "tu connais Blurf ?", "TA", 0.6, "EXPERT", highlighted='["Blurf"]')
    export_queue(write_classified(tmp_path / "c.csv", [record]), tmp_path / "q.csv", seeker=seeker)
    (queued,) = read_csv(tmp_path / "q.csv")
    assert queued["look_at"] == "Blurf"
    assert "'Blurf' unknown, capitalised (close to 'bluff')" in queued["why"]


def test_look_at_is_unique_in_text_order_and_lists_detections(tmp_path, seeker):
    text = "Zorglub appelle Cédric au 0612345678, zorglub et Zorglub"
    path = write_classified(tmp_path / "c.csv", [row(seeker, "1", text, "NTA", 0.4)])
    export_queue(path, tmp_path / "q.csv", seeker=seeker)
    (queued,) = read_csv(tmp_path / "q.csv")
    assert queued["look_at"] == "Zorglub; Cédric; 0612345678"
    assert "'0612345678' phone number" in queued["why"]


def test_csv_export_neutralises_formulas_and_opens_in_excel(corpus, tmp_path, seeker):
    export_queue(corpus, tmp_path / "queue.csv", seeker=seeker)
    raw = (tmp_path / "queue.csv").read_bytes()
    assert raw.startswith(b"\xef\xbb\xbf")  # BOM: Excel reads the accents as UTF-8
    queue = {r["text"].lstrip("'")[:4]: r for r in read_csv(tmp_path / "queue.csv")}
    assert queue["=HYP"]["text"] == "'" + HYPERLINK
    assert queue["@SUM"]["text"] == "'" + SUM
    assert queue["=HYP"]["id"] == "'-5"
    for record in queue.values():
        for value in record.values():
            assert not value.startswith(("=", "+", "-", "@")), value


def test_jsonl_export_is_not_neutralised(corpus, tmp_path, seeker):
    summary = export_queue(corpus, tmp_path / "queue.jsonl", seeker=seeker)
    records = [json.loads(line) for line in (tmp_path / "queue.jsonl").read_text("utf-8").splitlines()]
    assert summary.format == "jsonl" and len(records) == 6
    assert list(records[0]) == list(QUEUE_COLUMNS)
    by_id = {r["id"]: r for r in records}
    assert by_id["-5"]["text"] == HYPERLINK and by_id["6"]["text"] == SUM


def test_html_escapes_everything_and_highlights_the_words(tmp_path, seeker):
    text = "<script>alert('x')</script> Zorglub & Cédric"
    rows = [row(seeker, "<b>1</b>", text, "NTA", 0.4, "EXPERT"), row(seeker, "2", DEMAIN, "NTA", 0.1)]
    path = write_classified(tmp_path / "c.csv", rows)
    summary = export_queue(path, tmp_path / "queue.html", seeker=seeker)
    page = (tmp_path / "queue.html").read_text("utf-8")
    assert summary.format == "html" and summary.queued == 1
    assert "<script" not in page.lower() and "<b>" not in page
    assert "&lt;script&gt;<mark>alert</mark>(&#x27;" in page and ")&lt;/script&gt;" in page
    assert "&amp; <mark" in page and "&lt;b&gt;1&lt;/b&gt;" in page
    assert "<mark>Zorglub</mark>" in page
    # what the machines hid is shown with its tag, in the message and listed: never answered blind
    assert '<mark class="hidden">Cédric <span class="tag">PRE</span></mark>' in page
    assert "<td>Cédric (PRE)</td>" in page
    assert not re.search(r"(src|href)\s*=", page)  # self-contained
    assert "1 message to read" in page and "expert_decision" in page and "expert_hide" in page


def test_format_option_overrides_the_extension(corpus, tmp_path, seeker):
    summary = export_queue(corpus, tmp_path / "queue.txt", format="html", seeker=seeker)
    assert summary.format == "html"
    assert (tmp_path / "queue.txt").read_text("utf-8").startswith("<!DOCTYPE html>")
    with pytest.raises(InputError, match="queue format"):
        export_queue(corpus, tmp_path / "queue.docx", format="docx", seeker=seeker)


def test_export_refuses_to_overwrite_without_force_and_is_private(corpus, tmp_path, seeker):
    output = tmp_path / "queue.csv"
    export_queue(corpus, output, seeker=seeker)
    assert output.stat().st_mode & 0o077 == 0
    with pytest.raises(OutputExists):
        export_queue(corpus, output, seeker=seeker)
    export_queue(corpus, output, force=True, seeker=seeker)


def test_export_refuses_a_bad_classified_file(tmp_path, seeker):
    rows = [row(seeker, "1", CEDRIC, "NTA", 0.31), row(seeker, "2", BLURF, "NTA", 0.4, "MAYBE")]
    with pytest.raises(InputError, match=r"line 3: column 'decision'"):
        export_queue(write_classified(tmp_path / "a.csv", rows), tmp_path / "q.csv", seeker=seeker)
    rows = [row(seeker, "1", CEDRIC, "NTA", 0.31), row(seeker, "1", BLURF, "NTA", 0.4, "NTA")]
    with pytest.raises(InputError, match=r"id '1' appears on lines 2 and 3"):
        export_queue(write_classified(tmp_path / "b.csv", rows), tmp_path / "q.csv", seeker=seeker)
    assert not (tmp_path / "q.csv").exists()


# -------------------------------------------------------------------------- apply


def fill(queue_path: Path, answers: dict[str, tuple[str, str]], out: Path) -> Path:
    """What an expert does in a spreadsheet: fill the two columns, keep the rest."""
    rows = read_csv(queue_path)
    for record in rows:
        decision, hide = answers.get(record["id"], ("", ""))
        record["expert_decision"], record["expert_hide"] = decision, hide
    return write_csv(out, rows)


def test_round_trip_export_fill_apply_and_nothing_is_learnt(corpus, tmp_path, seeker, monkeypatch):
    user = tmp_path / "user"
    user.mkdir()
    (user / "names.txt").write_text("# my own names\nbidule\n", "utf-8")
    monkeypatch.setenv(lexicon_module.USER_DIR_ENV, str(user))
    queue = tmp_path / "queue.csv"
    export_queue(corpus, queue, seeker=seeker)
    decisions = fill(queue, {
        "1": ("TA", "Zorglub"),
        "2": ("ta", "kon"),  # 'Pierre' shown and left here...
        "3": ("1", "pierre"),  # ...hidden there: a conflict, kept as a name
        "4": ("NTA", ""),
        "'-5": ("0", ""),  # the id as the spreadsheet shows it
        # "6" left undecided
    }, tmp_path / "decisions.csv")

    summary = apply_decisions(decisions, corpus, tmp_path / "final.csv", seeker=seeker)

    final = {r["id"]: r for r in read_csv(tmp_path / "final.csv")}
    assert list(final) == ["1", "2", "3", "4", "-5", "6", "7", "8"]  # every row, same order
    assert list(next(iter(final.values()))) == list(CLASSIFIED_COLUMNS) + list(FINAL_COLUMNS)
    assert {i: r["final"] for i, r in final.items()} == {
        "1": "TA", "2": "TA", "3": "TA", "4": "NTA", "-5": "NTA", "6": "EXPERT", "7": "TA", "8": "NTA",
    }
    cedric = seeker.lexicons.first_names["cédric"]
    zorglub = code("PRE", "Zorglub", stable_id("PRE", "Zorglub"))
    assert final["1"]["final_text"] == f"Coucou <PRE_6_{cedric}>, tu as vu {zorglub} ?"
    kon = seeker.lexicons.last_name_id("kon")  # a known surname: tagged NOM
    assert final["2"]["final_text"] == f"Pierre a appelé <NOM_3_{kon}> hier"
    pierre = seeker.lexicons.first_names["pierre"]
    assert final["3"]["final_text"] == f"tu connais <PRE_6_{pierre}> ?"
    assert final["4"]["final_text"] == BLURF and final["8"]["final_text"] == DEMAIN
    assert final["-5"]["final_text"] == HYPERLINK  # the classified text, not the neutralised cell
    assert final["6"]["final_text"] == final["6"]["anonymised"]  # undecided: the safer text
    assert final["7"]["final_text"] == final["7"]["anonymised"] != JULIEN

    assert (summary.decided, summary.undecided, summary.ta, summary.nta, summary.total) == (5, 1, 3, 2, 8)
    assert summary.finals == {"TA": 4, "NTA": 3, "EXPERT": 1}
    # An answer about one message never teaches a word for the others (answering NTA for
    # "la place jean jaures" once taught that `jean` is an ordinary word): the user lexicon is untouched.
    assert sorted(p.name for p in user.iterdir()) == ["names.txt"]
    assert (user / "names.txt").read_text("utf-8") == "# my own names\nbidule\n"
    relearnt = SeekAndHide(lexicon_module.load(user_directory=user))
    assert relearnt.label_word("zorglub").label != DICTIONARY
    assert relearnt.label_word("Pierre").label == seeker.label_word("Pierre").label


def test_jsonl_decisions_are_read_as_they_are(corpus, tmp_path, seeker):
    queue = tmp_path / "queue.jsonl"
    export_queue(corpus, queue, seeker=seeker)
    records = [json.loads(line) for line in queue.read_text("utf-8").splitlines()]
    for record in records:
        if record["id"] == "-5":
            record["expert_decision"] = "TA"
            record["expert_hide"] = "Namrata"
    decisions = tmp_path / "decisions.jsonl"
    decisions.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), "utf-8")
    summary = apply_decisions(decisions, corpus, tmp_path / "final.jsonl", seeker=seeker)
    lines = (tmp_path / "final.jsonl").read_text("utf-8").splitlines()
    final = {json.loads(line)["id"]: json.loads(line) for line in lines}
    assert final["-5"]["final"] == "TA" and "Namrata" not in final["-5"]["final_text"]
    assert re.fullmatch(r'=HYPERLINK\("<URL_22_\d+>";"clic"\) <PRE_7_\d+>', final["-5"]["final_text"])
    assert summary.undecided == 5


def test_hiding_is_case_insensitive_whole_words_only(tmp_path, seeker):
    text = "Zorg et zorg, pas Zorglub ni d'ZORG"
    path = write_classified(tmp_path / "c.csv", [row(seeker, "1", text, "NTA", 0.4, "EXPERT")])
    decisions = write_csv(tmp_path / "d.csv", [{"id": "1", "expert_decision": "TA", "expert_hide": " zorg ; "}])
    apply_decisions(decisions, path, tmp_path / "f.csv", seeker=seeker)
    (final,) = read_csv(tmp_path / "f.csv")
    assert re.fullmatch(r"<PRE_4_\d+> et <PRE_4_\d+>, pas Zorglub ni d'<PRE_4_\d+>", final["final_text"])


def test_undecided_rows_stay_expert(corpus, tmp_path, seeker):
    export_queue(corpus, tmp_path / "queue.csv", seeker=seeker)
    decisions = fill(tmp_path / "queue.csv", {}, tmp_path / "d.csv")
    summary = apply_decisions(decisions, corpus, tmp_path / "f.csv", seeker=seeker)
    final = read_csv(tmp_path / "f.csv")
    assert [r["final"] for r in final] == ["EXPERT"] * 6 + ["TA", "NTA"]
    assert all(r["final_text"] == r["anonymised"] for r in final[:6])
    assert (summary.decided, summary.undecided) == (0, 6)


def test_duplicate_ids_are_refused(corpus, tmp_path, seeker):
    export_queue(corpus, tmp_path / "queue.csv", seeker=seeker)
    rows = read_csv(tmp_path / "queue.csv")
    decisions = write_csv(tmp_path / "d.csv", rows + [rows[2]])
    with pytest.raises(InputError, match=r"d\.csv: id '1' appears on lines 4 and 8"):
        apply_decisions(decisions, corpus, tmp_path / "f.csv", seeker=seeker)
    classified = read_csv(corpus)
    twice = write_classified(tmp_path / "twice.csv", classified + [classified[3]])
    ok = fill(tmp_path / "queue.csv", {}, tmp_path / "ok.csv")
    with pytest.raises(InputError, match=r"twice\.csv: id '4' appears on lines 5 and 10"):
        apply_decisions(ok, twice, tmp_path / "f.csv", seeker=seeker)
    assert not (tmp_path / "f.csv").exists() and not (tmp_path / "u").exists()


def test_unknown_ids_are_refused(corpus, tmp_path, seeker):
    decisions = write_csv(tmp_path / "d.csv", [
        {"id": "1", "expert_decision": "TA", "expert_hide": ""},
        {"id": "0042", "expert_decision": "NTA", "expert_hide": ""},
    ])
    with pytest.raises(InputError, match=r"'0042' \(line 3\)"):
        apply_decisions(decisions, corpus, tmp_path / "f.csv", seeker=seeker)
    assert not (tmp_path / "f.csv").exists() and not (tmp_path / "u").exists()


@pytest.mark.parametrize(
    "answer, error",
    [
        ({"expert_decision": "peut-être", "expert_hide": ""}, "is not TA or NTA"),
        ({"expert_decision": "NTA", "expert_hide": "Zorglub"}, "NTA but expert_hide"),
        ({"expert_decision": "", "expert_hide": "Zorglub"}, "expert_decision is empty"),
        ({"expert_decision": "TA", "expert_hide": "Zorglob"}, "'Zorglob' is not a word of the message"),
        ({"expert_decision": "TA", "expert_hide": "", "text": "un autre message"}, "holds another text"),
    ],
)
def test_inconsistent_answers_are_refused(tmp_path, seeker, answer, error):
    path = write_classified(tmp_path / "c.csv", [row(seeker, "1", CEDRIC, "NTA", 0.31)])
    decisions = write_csv(tmp_path / "d.csv", [{"id": "1", **answer}])
    with pytest.raises(InputError, match=re.escape(error)):
        apply_decisions(decisions, path, tmp_path / "f.csv", seeker=seeker)
    assert not (tmp_path / "f.csv").exists()


def test_the_html_page_is_not_a_decisions_file(corpus, tmp_path, seeker):
    export_queue(corpus, tmp_path / "queue.html", seeker=seeker)
    with pytest.raises(InputError, match="for reading only"):
        apply_decisions(tmp_path / "queue.html", corpus, tmp_path / "f.csv", seeker=seeker)


def test_apply_never_overwrites_an_input_or_an_output_without_force(corpus, tmp_path, seeker):
    export_queue(corpus, tmp_path / "queue.csv", seeker=seeker)
    decisions = fill(tmp_path / "queue.csv", {"4": ("NTA", "")}, tmp_path / "d.csv")
    with pytest.raises(InputError, match="input file"):
        apply_decisions(decisions, corpus, corpus, force=True, seeker=seeker)
    apply_decisions(decisions, corpus, tmp_path / "f.csv", seeker=seeker)
    with pytest.raises(OutputExists):
        apply_decisions(decisions, corpus, tmp_path / "f.csv", seeker=seeker)
