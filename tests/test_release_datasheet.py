"""The release follows what classify did, and its datasheet states only what is true of the file."""

import csv
import json
import re
from pathlib import Path

import pandas as pd
import pytest
from conftest import failed, succeeded

import triage
from triage.review_workspace import Workspace
from triage.schema import DEFAULT_HIDE, HIDE_TAGS

PLACES_AND_BRANDS = "default,LIE,MAR"

# Invented messages: names, a phone, an e-mail, a web address, places and brands, two donors, two months.
MESSAGES = [
    ("1", "d1", "2024-03-02", "slt Julie tu viens a Lyon samedi ?"),
    ("2", "d1", "2024-03-02", "appelle moi au 06 12 34 56 78 stp"),
    ("3", "d2", "2024-03-05", "jsuis chez Decathlon avec Karim"),
    ("4", "d2", "2024-03-09", "mon mail c'est julie.moreau@example.com"),
    ("5", "d1", "2024-03-11", "ok a demain bisous"),
    ("6", "d2", "2024-03-15", "on se retrouve a Marseille devant la gare"),
    ("7", "d1", "2024-04-01", "regarde www.exemple-blog.fr c'est trop bien"),
    ("8", "d2", "2024-04-03", "jai pris un cafe au Starbucks de Lille"),
    ("9", "d1", "2024-04-07", "bonne nuit a toi"),
    ("10", "d2", "2024-04-12", "dis a Nicolas que je passe a Toulouse"),
]
TAG_IN_RELEASE = re.compile(r"<([A-Z]{3})_\d+>")


def write_corpus(path: Path, rows=MESSAGES) -> Path:
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["id", "donor", "date", "text"])
        writer.writerows(rows)
    return path


def classify_into(cli, tmp_path: Path, *options) -> tuple[Path, Path]:
    source = write_corpus(tmp_path / "sms.csv")
    classified, ws = tmp_path / "sms.classified.csv", tmp_path / "sms.review.sqlite"
    succeeded(cli("classify", source, "-o", classified, "--no-chart", "--workspace", ws, *options))
    return classified, ws


def decide_queue(ws: Path, reviewer: str = "ana") -> None:
    """Every queued message decided as the machines proposed."""
    with Workspace.open(ws) as opened:
        for item in opened.items(kind="queue", limit=1000):
            opened.decide(item.id, label="TA" if item.proposal else "NTA", spans=item.proposal, reviewer=reviewer)


def released(tmp_path: Path, name: str = "corpus") -> tuple[list[dict], dict, str]:
    with (tmp_path / f"{name}.csv").open(newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    return (rows, json.loads((tmp_path / f"{name}.datasheet.json").read_text("utf-8")),
            (tmp_path / f"{name}.datasheet.md").read_text("utf-8"))


def tags_in(rows: list[dict], column: str = "text") -> dict[str, int]:
    counts: dict[str, int] = {}
    for row in rows:
        for tag in TAG_IN_RELEASE.findall(row[column]):
            counts[tag] = counts.get(tag, 0) + 1
    return counts


# ------------------------------------------------------------ classify records what it did


def test_classify_records_its_command_and_settings_in_the_workspace(cli, tmp_path):
    _, ws = classify_into(cli, tmp_path, "--hide", PLACES_AND_BRANDS, "--expert-budget", "0.2")
    with Workspace.open(ws) as opened:
        settings = opened.classify_settings()
    assert settings["hide"] == [*DEFAULT_HIDE, "LIE", "MAR"]
    assert settings["expert_budget"] == "20%" and settings["policy"] == "budget" and settings["calibrated"] is False
    assert "--hide default,LIE,MAR" in settings["command"] and settings["command"].startswith("triage classify")
    assert settings["model"]["name"] == "the embedded model" and settings["model"]["fingerprint"]
    assert settings["audit_size"] == 200 and settings["audit_seed"] == 0
    assert settings["text_column"] == "text" and settings["messages"] == len(MESSAGES)


def test_the_python_api_records_classify_settings_too(tmp_path):
    frame = pd.DataFrame({"id": [m[0] for m in MESSAGES], "text": [m[3] for m in MESSAGES]})
    ws = tmp_path / "api.review.sqlite"
    triage.classify(frame, id_column="id", hide=PLACES_AND_BRANDS, expert_budget=2, workspace=ws)
    with Workspace.open(ws) as opened:
        settings = opened.classify_settings()
    assert settings["hide"] == [*DEFAULT_HIDE, "LIE", "MAR"] and settings["expert_budget"] == "2 messages"
    assert settings["command"].startswith("triage.classify(") and "hide='default,LIE,MAR'" in settings["command"]


# ------------------------------------------------------------ release uses classify's --hide


def test_release_hides_what_classify_hid_without_being_told(cli, tmp_path):
    classified, ws = classify_into(cli, tmp_path, "--hide", PLACES_AND_BRANDS)
    decide_queue(ws)
    succeeded(cli("release", classified, "--workspace", ws, "-o", tmp_path / "corpus.csv"))
    rows, sheet, markdown = released(tmp_path)
    assert tags_in(rows).get("LIE")  # the file hides places...
    assert "LIE" in sheet["hidden_categories"] and "LIE" not in sheet["readable_categories"]  # ...and says so
    assert "`--hide default,LIE,MAR`" in markdown and "Left readable" not in markdown


def test_a_different_hide_is_refused_naming_both(cli, tmp_path):
    classified, ws = classify_into(cli, tmp_path, "--hide", PLACES_AND_BRANDS)
    decide_queue(ws)
    message = failed(cli("release", classified, "--workspace", ws, "-o", tmp_path / "corpus.csv", "--hide", "default"),
                     1, "--hide default", "--hide default,LIE,MAR", "--hide-differs-ok")
    assert "differs" in message
    assert not (tmp_path / "corpus.csv").exists()


def test_a_different_hide_accepted_is_named_in_the_datasheet(cli, tmp_path):
    classified, ws = classify_into(cli, tmp_path, "--hide", PLACES_AND_BRANDS)
    decide_queue(ws)
    succeeded(cli("release", classified, "--workspace", ws, "-o", tmp_path / "corpus.csv", "--hide", "default",
                  "--hide-differs-ok"))
    rows, sheet, markdown = released(tmp_path)
    assert sheet["hidden_categories"] == [*DEFAULT_HIDE, "LIE", "MAR"]  # the messages hide what classify hid
    assert sheet["hide_differs"]["hidden_in_messages_only"] == ["LIE", "MAR"]
    assert "hidden in the messages, readable in the other columns: places (LIE), brands (MAR)" in markdown
    assert tags_in(rows).get("LIE")


@pytest.mark.parametrize("hide", ["default", PLACES_AND_BRANDS, "PRE,TEL", "default,LIE"])
def test_every_category_the_datasheet_states_is_true_of_the_file(cli, tmp_path, hide):
    classified, ws = classify_into(cli, tmp_path, "--hide", hide)
    decide_queue(ws)
    succeeded(cli("release", classified, "--workspace", ws, "-o", tmp_path / "corpus.csv", "--columns", "donor",
                  "--inconsistent-ok"))
    rows, sheet, markdown = released(tmp_path)
    in_file = tags_in(rows)
    assert in_file == sheet["hidden_items_by_tag"]  # every count the datasheet gives is the file's
    with Workspace.open(ws) as opened:
        recorded = opened.classify_settings()["hide"]
    assert sheet["hidden_categories"] == recorded
    for tag in HIDE_TAGS:
        hidden, readable = tag in sheet["hidden_categories"], tag in sheet["readable_categories"]
        assert hidden != readable, tag  # every category is stated, once
        if readable and in_file.get(tag):  # left readable, yet some hidden: said so, with the count
            assert f"except {in_file[tag]:,} item" in markdown and f"({tag})" in markdown
        elif readable:
            assert f"({tag})" in markdown.split("Left readable by design:")[1].split("\n")[0]
        else:
            assert f"({tag})" in markdown.split("Hidden (`--hide")[1].split("\n")[0]


# ------------------------------------------------------------ a spreadsheet reviewer's path to release

WORKING_CODE = re.compile(r"<[A-Z]{3}_\d+_\d+>")  # <PRE_7_151>: a dictionary id of the working copy
# A reviewer's answer for every message the queue may hold (half of the ten are queued: the riskiest).
ANSWERS = {"10": ("TA", "Toulouse"), "1": ("TA", ""), "3": ("TA", "Decathlon"), "8": ("NTA", ""), "2": ("TA", ""),
           "4": ("TA", ""), "5": ("NTA", ""), "6": ("NTA", ""), "7": ("TA", ""), "9": ("NTA", "")}


def queued_ids(queue: Path) -> set[str]:
    if queue.suffix == ".xlsx":
        from triage.io.spreadsheets import read_xlsx

        columns, cells = read_xlsx(queue)
        return {str(dict(zip(columns, row))["id"]) for row in cells}
    with queue.open(newline="", encoding="utf-8-sig") as handle:
        return {row["id"] for row in csv.DictReader(handle)}


def queued_corpus(cli, tmp_path: Path, queue_name: str = "queue.csv") -> tuple[Path, Path, Path]:
    source = write_corpus(tmp_path / "sms.csv")
    classified, ws, queue = tmp_path / "sms.classified.csv", tmp_path / "sms.review.sqlite", tmp_path / queue_name
    succeeded(cli("classify", source, "-o", classified, "--no-chart", "--workspace", ws, "--queue", queue,
                  "--expert-budget", "0.5"))
    return classified, ws, queue


def fill(queue: Path, answers=ANSWERS, texts=None) -> Path:
    """The reviewer's spreadsheet: expert_decision and expert_hide filled (a text edited with `texts`)."""
    if queue.suffix == ".xlsx":
        from triage.io.spreadsheets import read_xlsx, write_xlsx

        columns, cells = read_xlsx(queue)
        rows = [dict(zip(columns, row)) for row in cells]
    else:
        with queue.open(newline="", encoding="utf-8-sig") as handle:
            rows = list(csv.DictReader(handle))
        columns = list(rows[0])
    for row in rows:
        row["expert_decision"], row["expert_hide"] = answers.get(row["id"], ("", ""))
        row["text"] = (texts or {}).get(row["id"], row["text"])
    filled = queue.with_name("filled" + queue.suffix)
    if queue.suffix == ".xlsx":
        write_xlsx(filled, columns, [[row[c] for c in columns] for row in rows])
    else:
        with filled.open("w", newline="", encoding="utf-8-sig") as handle:
            writer = csv.DictWriter(handle, columns)
            writer.writeheader()
            writer.writerows(rows)
    return filled


@pytest.mark.parametrize("queue_name", ["queue.csv", "queue.xlsx"])
def test_a_filled_queue_file_is_imported_and_released(cli, tmp_path, queue_name):
    classified, ws, queue = queued_corpus(cli, tmp_path, queue_name)
    result = cli("review", classified, "--workspace", ws, "--import-queue", fill(queue), "--reviewer", "Marie")
    succeeded(result)
    queued = queued_ids(queue)
    assert len(queued) == 5 and "10" in queued and "imported 5 decisions of Marie" in result.output
    with Workspace.open(ws) as opened:
        decided = {item.id: (item.label, item.reviewer) for item in opened.items(kind="queue", limit=100)}
    assert decided == {i: (label, "Marie") for i, (label, _) in ANSWERS.items() if i in queued}
    succeeded(cli("release", classified, "--workspace", ws, "-o", tmp_path / "corpus.csv"))  # nothing undecided
    rows, sheet, _ = released(tmp_path)
    texts = {row["id"]: row["text"] for row in rows}
    assert "Nicolas" not in texts["10"] and "Toulouse" not in texts["10"] and "Decathlon" not in texts["3"]
    assert "06 12" not in texts["2"] and texts["8"] == "jai pris un cafe au Starbucks de Lille"
    assert not any(WORKING_CODE.search(t) for t in texts.values())  # never the working copy's codes
    assert sheet["messages"]["reviewer"] == 5 and sheet["messages"]["withheld_undecided"] == 0


def test_a_row_whose_text_changed_is_refused_naming_it_and_nothing_is_imported(cli, tmp_path):
    classified, ws, queue = queued_corpus(cli, tmp_path)
    filled = fill(queue, texts={"3": "jsuis chez Decathlon avec Karima"})
    failed(cli("review", classified, "--workspace", ws, "--import-queue", filled, "--reviewer", "Marie"), 1,
           "'3' (line", "text is not the message", "nothing was imported")
    with Workspace.open(ws) as opened:
        assert opened.progress()["decided"] == 0


def test_a_message_decided_otherwise_is_not_overwritten_by_an_import(cli, tmp_path):
    classified, ws, queue = queued_corpus(cli, tmp_path)
    with Workspace.open(ws) as opened:
        opened.decide("8", label="TA", spans=[[20, 29, "MAR"]], reviewer="ana")
    failed(cli("review", classified, "--workspace", ws, "--import-queue", fill(queue), "--reviewer", "Marie"), 1,
           "'8'", "decided TA by ana", "nothing was imported")
    with Workspace.open(ws) as opened:
        assert opened.item("8").label == "TA" and opened.progress()["decided"] == 1


def test_a_word_to_hide_absent_from_its_message_is_refused(cli, tmp_path):
    classified, ws, queue = queued_corpus(cli, tmp_path)
    filled = fill(queue, {**ANSWERS, "1": ("TA", "Juliette")})
    failed(cli("review", classified, "--workspace", ws, "--import-queue", filled), 1, "'Juliette' in '1'")


# ------------------------------------------------------------ the datasheet: Gebru et al.'s sections

def answers(sheet: dict) -> dict[str, str]:
    return {item["question"]: item["answer"] for section in sheet["sections"] for item in section["answers"]}


def test_each_filled_statement_is_true_of_the_released_corpus(cli, tmp_path):
    classified, ws = classify_into(cli, tmp_path)
    decide_queue(ws)
    with Workspace.open(ws) as opened:  # part of the audit sample reviewed
        for item in opened.items(kind="audit", limit=3):
            opened.decide(item.id, label="TA" if item.proposal else "NTA", spans=item.proposal, reviewer="ana")
    succeeded(cli("release", classified, "--workspace", ws, "-o", tmp_path / "corpus.csv"))
    rows, sheet, markdown = released(tmp_path)
    source = {m[0]: m for m in MESSAGES}
    said = answers(sheet)
    assert [s["id"] for s in sheet["sections"]] == ["motivation", "composition", "collection", "preprocessing",
                                                    "uses", "distribution", "maintenance"]
    assert said["How many instances are there?"] == f"{len(rows)} messages."
    donors = {source[row["id"]][1] for row in rows}
    assert sheet["composition"]["donors"]["donors"] == len(donors) == 2
    assert said["How many donors (senders)?"].startswith(f"{len(donors)} distinct values of the column `donor`")
    dates = sorted(source[row["id"]][2] for row in rows)
    assert said["Over which period were the messages sent?"].startswith(f"From {dates[0]} to {dates[-1]}")
    assert sheet["composition"]["languages"]["mostly_french"] == len(rows)  # every message here is French
    assert "`triage classify" in said["How was the corpus classified?"]
    assert "--hide default" in said["How was the corpus classified?"] and "audit sample 200" in said[
        "How was the corpus classified?"]
    audit = sheet["audit"]
    assert audit["audited"] == 3 and f"sample of {audit['sample']:,} of the" in said["What did an audit of the machines find?"]
    assert f"{audit['audited']:,} reviewed" in said["What did an audit of the machines find?"]
    assert f"{audit['audited']:,} were reviewed (the sample size of the estimate)" in markdown
    from hashlib import sha256

    digest = sha256((tmp_path / "corpus.csv").read_bytes()).hexdigest()
    assert digest in said["How is the dataset distributed?"]
    # The Markdown says what the JSON says: every answer, word for word.
    for section in sheet["sections"]:
        assert f"## {section['title']}" in markdown
        for item in section["answers"]:
            assert f"- **{item['question']}** {item['answer']}" in markdown


def test_placeholders_mark_what_only_a_person_can_write(cli, tmp_path):
    source = tmp_path / "bare.csv"
    source.write_text("id,text\n1,slt Julie ca va\n2,ok a demain\n3,see you tomorrow at the station\n", "utf-8")
    classified, ws = tmp_path / "bare.classified.csv", tmp_path / "bare.sqlite"
    succeeded(cli("classify", source, "-o", classified, "--no-chart", "--workspace", ws))
    result = cli("release", classified, "--workspace", ws, "-o", tmp_path / "corpus.csv", "--withhold-undecided")
    succeeded(result)
    _, sheet, markdown = released(tmp_path)
    said = answers(sheet)
    for question in ("For what purpose was the dataset created?", "Did the donors consent, and to what?",
                     "Under which licence?", "Who maintains the dataset, and how can they be contacted?",
                     "How many donors (senders)?", "Over which period were the messages sent?"):
        assert said[question].startswith("[TO FILL: ") and said[question].endswith("]"), question
        assert f"**{question}** [TO FILL: " in markdown
    # The embedded model's evaluation is recorded beside it: the datasheet states it, and how it was measured.
    from triage.model import Model, recorded_evaluation

    recorded = recorded_evaluation(Model.default().metadata)
    residual = said["What is the expected residual and over-masking of the model used?"]
    assert f"{100 * recorded['residual_span_rate']:.1f}% of the items to hide left readable (residual)" in residual
    assert f"{100 * recorded['over_masking_rate']:.1f}% of ordinary words hidden (over-masking)" in residual
    assert f"{100 * recorded['person_precision']:.0f}% of what is hidden as a person is an identifier" in residual
    assert "donors it never saw" in residual
    assert "--donor-column" in said["How many donors (senders)?"]
    assert sheet["composition"]["donors"] is None and sheet["composition"]["period"] is None
    assert not said["How many instances are there?"].startswith("[TO FILL")
    assert sheet["composition"]["languages"]["mostly_other"] >= 1  # the English message
    assert "statements marked [TO FILL: ...]" in result.output


def test_the_recorded_evaluation_belongs_to_the_embedded_model_only():
    from triage.model import Model, recorded_evaluation

    embedded = Model.default().metadata
    assert 0 < recorded_evaluation(embedded)["residual_span_rate"] < 0.05
    assert recorded_evaluation({**embedded, "metadata_sha256": "0" * 64}) is None  # a model trained by a user


def test_donor_and_date_columns_can_be_named(cli, tmp_path):
    source = tmp_path / "named.csv"
    source.write_text("id,qui,quand,text\n1,a,12/01/2023,ok a demain\n2,b,03/02/2023,bisous\n3,a,,on se voit\n",
                      "utf-8")
    classified, ws = tmp_path / "named.classified.csv", tmp_path / "named.sqlite"
    succeeded(cli("classify", source, "-o", classified, "--no-chart", "--workspace", ws))
    succeeded(cli("release", classified, "--workspace", ws, "-o", tmp_path / "corpus.csv", "--withhold-undecided",
                  "--donor-column", "qui", "--date-column", "quand"))
    _, sheet, _ = released(tmp_path)
    released_ids = sheet["messages"]["released"]
    assert sheet["composition"]["donors"]["column"] == "qui"
    period = sheet["composition"]["period"]
    assert period["column"] == "quand" and period["dated_messages"] + period["undated_messages"] == released_ids
    failed(cli("release", classified, "--workspace", ws, "-o", tmp_path / "other.csv", "--withhold-undecided",
               "--donor-column", "sender"), 1, "--donor-column", "'sender'")


def test_the_python_api_imports_a_filled_queue_and_lists_consistency(cli, tmp_path):
    classified, ws, queue = queued_corpus(cli, tmp_path)
    lines = triage.review(classified, workspace=ws, import_queue=fill(queue), reviewer="Marie")
    assert lines[0].startswith("imported 5 decisions of Marie")
    listed = triage.review(classified, workspace=ws, consistency=True)
    assert listed[0].startswith("consistency: ")
    released_corpus = triage.release(classified, workspace=ws, inconsistent_ok=True)
    assert released_corpus.datasheet["messages"]["reviewer"] == 5


def gold_file(path: Path) -> Path:
    """Invented gold messages: names to hide (spans) and ordinary ones."""
    rows = []
    for name in ["Julie", "Kevin", "Sophie", "Nicolas", "Chloé", "Karim", "Léa", "Hugo"] * 2:
        rows.append([f"rdv avec {name} à 18h", "TA", json.dumps([[9, 9 + len(name), "PRE"]])])
    for text in ["ok", "jarrive", "bonne nuit", "tkt", "a plus", "merci", "trop bien", "on mange ?"] * 2:
        rows.append([text, "NTA", "[]"])
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["text", "label", "spans"])
        writer.writerows(rows)
    return path


def test_the_expected_residual_comes_from_an_evaluation_of_the_model_classify_used(cli, tmp_path):
    from triage.model import default_model_path

    classified, ws = classify_into(cli, tmp_path)
    decide_queue(ws)
    gold = gold_file(tmp_path / "gold.csv")
    succeeded(cli("evaluate", gold, "--model", default_model_path(), "--out-dir", tmp_path / "eval"))
    measured = json.loads((tmp_path / "eval" / "evaluate.json").read_text("utf-8"))["chosen"]
    succeeded(cli("release", classified, "--workspace", ws, "-o", tmp_path / "corpus.csv", "--inconsistent-ok",
                  "--evaluation", tmp_path / "eval" / "evaluate.json"))
    _, sheet, _ = released(tmp_path)
    said = answers(sheet)["What is the expected residual and over-masking of the model used?"]
    assert f"{100 * measured['residual_span_rate']:.1f}% of the items to hide left readable" in said
    assert f"{100 * measured['over_masking_rate']:.1f}% of ordinary words hidden" in said
    assert "gold.csv, 32 messages" in said
    # Figures of a model cross-validated on the gold, with no model named, are of another model: refused.
    data = json.loads((tmp_path / "eval" / "evaluate.json").read_text("utf-8"))
    crossed = {**{k: v for k, v in data.items() if k not in ("model_fingerprint", "cross_validated")},
               **data["cross_validated"]}
    (tmp_path / "cv.json").write_text(json.dumps(crossed), "utf-8")
    failed(cli("release", classified, "--workspace", ws, "-o", tmp_path / "other.csv", "--inconsistent-ok",
               "--evaluation", tmp_path / "cv.json"), 1, "not the one classify used")


def test_the_datasheet_takes_the_figures_of_the_model_classify_used_not_the_cross_validated_ones(cli, tmp_path):
    """`triage evaluate GOLD` with no --model evaluates the embedded model classify used: the
    release takes its figures, not those of the model cross-validated on the gold beside them."""
    classified, ws = classify_into(cli, tmp_path)
    decide_queue(ws)
    gold = gold_file(tmp_path / "gold.csv")
    succeeded(cli("evaluate", gold, "--out-dir", tmp_path / "eval", "--folds", "2"))
    data = json.loads((tmp_path / "eval" / "evaluate.json").read_text("utf-8"))
    # Make the two sets of figures tell apart: the datasheet must state the first.
    data["chosen"]["residual_span_rate"], data["cross_validated"]["chosen"]["residual_span_rate"] = 0.0123, 0.0456
    (tmp_path / "eval" / "evaluate.json").write_text(json.dumps(data), "utf-8")
    succeeded(cli("release", classified, "--workspace", ws, "-o", tmp_path / "corpus.csv", "--inconsistent-ok",
                  "--evaluation", tmp_path / "eval" / "evaluate.json"))
    _, sheet, _ = released(tmp_path)
    said = answers(sheet)["What is the expected residual and over-masking of the model used?"]
    assert "1.2% of the items to hide left readable" in said and "4.6%" not in said


def test_another_section_slots_in_and_is_rendered(cli, tmp_path):
    from triage.publication.datasheet import fill_sections, add_section, datasheet_markdown

    classified, ws = classify_into(cli, tmp_path)
    decide_queue(ws)
    sheet = triage.release(classified, workspace=ws, inconsistent_ok=True).datasheet
    add_section(sheet, {"id": "review", "title": "Review", "answers": [{"question": "Who reviewed?", "answer": "ana"}],
                        "lines": ["| reviewer | decisions |", "|---|---|", "| ana | 1 |"]})
    fill_sections(sheet)  # the tool's sections made anew keep the added one in its place
    assert [s["id"] for s in sheet["sections"]][3:6] == ["preprocessing", "review", "uses"]
    markdown = datasheet_markdown(sheet)
    assert "## Review\n\n- **Who reviewed?** ana\n\n| reviewer | decisions |" in markdown
    assert markdown.index("## Review") < markdown.index("## Uses")


def test_the_language_estimate_tells_french_sms_from_other_languages():
    from triage.seekhide.language import message_languages

    french = ["slt sa va? tu fai koi 2m1", "jsuis en retard dsl", "on se voit chez Karim", "bisouuuus a demain",
              "tkt jarrive dans 5 min", "c trop bieeeen mdrrr", "il fait froid ici", "merciiiii <3"]
    other = ["see you tomorrow at the station", "where are you now", "thanks for the call, talk later",
             "happy birthday my friend", "gracias amigo, hasta luego", "te quiero mucho amigo"]
    found = message_languages(french + other + ["06 12 34 56 78", "Julie ?"])
    assert (found["mostly_french"], found["mostly_other"], found["undetermined"]) == (len(french), len(other), 2)


_LANGUAGE_TEXTS = [
    "slt sa va? tu fai koi", "see you tomorrow, see you", "tu viens demain ? see you", "bieeeen vu merciiiii",
    "gracias amigo gracias", "on se voit demain", "where are you", "Julie ?", "06 12 34 56 78",
    "j'arrive à l’école, desole", "Ahahaha trop bien", "LOL see YOU", "ça c'est génial", "Marie Dupont",
    "happy birthday my friend, see you soon", "te quiero mucho amigo, hasta luego",
]


@pytest.mark.parametrize(("kept", "part"), [(0, 1), (3, 4), (100_000, 5_000)])
def test_the_language_of_each_message_is_the_same_however_the_corpus_is_read(kept, part, monkeypatch):
    """message_languages reads the messages in parts, looks the new words of each part up at once and keeps
    the class of CLASSES_KEPT words for the next parts: the counts are those of each message read alone."""
    from triage import lexicons
    from triage.seekhide import language

    texts = _LANGUAGE_TEXTS * 2
    alone = [language.words(text, lexicons.default()) for text in texts]
    expected = {"mostly_french": sum(w.total > 0 and not w.mostly_other for w in alone),
                "mostly_other": sum(w.mostly_other for w in alone), "undetermined": sum(w.total == 0 for w in alone)}
    monkeypatch.setattr(language, "CLASSES_KEPT", kept)
    monkeypatch.setattr(language, "PART_MESSAGES", part)
    found = language.message_languages(iter(texts))
    assert {name: found[name] for name in expected} == expected
    assert found["mostly_other"] >= 4 and found["mostly_french"] >= 8 and found["undetermined"] == 4


def test_the_words_looked_up_together_get_the_class_each_gets_alone():
    """foreign.word_classes asks the lists about many words at once: each word's class is word_class's,
    letter repetitions, accents, apostrophes, names, numbers and other languages' words included."""
    from triage import lexicons
    from triage.seekhide import foreign

    keys = [foreign.key_of(word) for text in _LANGUAGE_TEXTS for word in text.replace("?", " ").split()]
    keys += ["", "123", "the", "bieeeeen", "ouiii", "xzqwv", "pierre", "rose", "elle", "qu'il", "aujourd'hui",
             "coeur", "cœur", "desoleee", "nicoooolas", "tkt", "mdrrrr", "pizzzza", "frrrre", "belllle"]
    wanted = [foreign.word_class(key, lexicons.default()) for key in keys]
    assert foreign.word_classes(keys, lexicons.default()) == wanted
    assert set(wanted) == {foreign.FRENCH, foreign.OTHER, foreign.UNKNOWN, foreign.NOT_COUNTED}


def test_the_published_commands_name_files_not_the_folders_that_hold_them(cli, tmp_path):
    """A folder can name its owner (/home/<login>/...): the datasheet's commands keep file names only."""
    from triage.publication.datasheet import published_command

    assert published_command(["classify", "/home/marie/corpus sms/sms.csv", "-o", "out/x.csv",
                              "--model=/home/marie/m.triage"]) == "triage classify sms.csv -o x.csv --model=m.triage"
    folder = tmp_path / "home-of-someone"
    folder.mkdir()
    source = folder / "sms.csv"
    source.write_text("id,text\n1,slt Julie ca va\n2,ok a demain\n", "utf-8")
    classified, ws = folder / "sms.classified.csv", folder / "ws.sqlite"
    succeeded(cli("classify", source, "-o", classified, "--no-chart", "--workspace", ws))
    succeeded(cli("release", classified, "--workspace", ws, "-o", folder / "corpus.csv", "--withhold-undecided",
                  "--inconsistent-ok"))
    for sheet in folder.glob("corpus.datasheet.*"):
        assert "home-of-someone" not in sheet.read_text("utf-8") and str(tmp_path) not in sheet.read_text("utf-8")
