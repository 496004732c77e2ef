"""Known names (`classify --known-names FILE`, `triage.classify(known_names=...)`): the names a team
knows are hidden with their tag, and their variants too, in every message; an ordinary word only as
the name itself with a capital."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pandas as pd
import pytest
from conftest import failed, nothing_written, read_rows, succeeded, write_table

import triage
from triage import engines, model
from triage.errors import BadInput
from triage.jobs import run_classify
from triage.review_workspace import Workspace
from triage.seekhide import SeekAndHide, known_names_of, read_known_names

KNOWN = "# participants\nZorglubine\nRose\nMarie Durand\nBibouchka\tSUR\n"


def hidden(seeker: SeekAndHide, text: str) -> dict[str, str]:
    """The words hidden in `text`, with their tags."""
    return {text[start:end]: tag for start, end, tag in seeker.seek(text).hidden}


@pytest.fixture
def known_file(tmp_path) -> Path:
    path = tmp_path / "participants.txt"
    path.write_text(KNOWN, encoding="utf-8")
    return path


@pytest.fixture
def seeker(lexicons, known_file) -> SeekAndHide:
    return SeekAndHide(lexicons, known=read_known_names(known_file))


# ------------------------------------------------------------------ which words are hidden

@pytest.mark.parametrize("text, word", [
    ("slt Zorglubine tu viens ce soir", "Zorglubine"),
    ("zorglubine est en retard", "zorglubine"),
    ("jai vu zorglubiiine hier", "zorglubiiine"),  # letters repeated
    ("dis a Zorglubinne de m appeler", "Zorglubinne"),
    ("bisous Zorglubime", "Zorglubime"),  # one letter replaced
    ("avec zorgulbine ce midi", "zorgulbine"),  # two letters swapped
    ("ZORGLÙBINE ARRIVE", "ZORGLÙBINE"),  # case and accents aside
])
def test_a_name_in_no_lexicon_and_its_variants_are_hidden(lexicons, seeker, text, word):
    assert word not in hidden(SeekAndHide(lexicons), text)  # the lexicons alone leave it
    assert hidden(seeker, text)[word] == "PRE"


def test_a_name_that_is_an_ordinary_word_is_hidden_with_a_capital_only(seeker):
    assert hidden(seeker, "je passe chez Rose ce soir") == {"Rose": "PRE"}
    assert hidden(seeker, "je lui ai offert une rose") == {}


def test_a_name_a_review_taught_that_is_an_ordinary_word_is_not_hidden_where_it_opens_a_sentence(lexicons):
    from triage.seekhide.known import merged, taught_names

    taught = SeekAndHide(lexicons, known=taught_names([("Petit", "NOM")], "the review workspace"))
    assert hidden(taught, "Petit souci ce matin") == {}  # the capital says nothing there
    assert hidden(taught, "je vais chez Petit demain") == {"Petit": "NOM"}
    assert hidden(taught, "ok. Petit souci") == {}
    # Two letters taught are read as an ordinary word (in lower case, two letters are mostly an SMS word).
    two = SeekAndHide(lexicons, known=taught_names([("Zu", "PRE")], "the review workspace"))
    assert hidden(two, "on se voit zu ce soir") == {} and hidden(two, "Zu vient ce soir") == {}
    assert hidden(two, "coucou Zu") == {"Zu": "PRE"}
    assert hidden(SeekAndHide(lexicons, known=known_names_of(["Zu"])), "on se voit zu ce soir") == {"zu": "PRE"}
    # The team's own list hides it wherever it is written with a capital, even when a review taught it too.
    listed = known_names_of(["Petit\tNOM"])
    for known in (listed, merged(listed, taught_names([("Petit", "NOM")], "the review workspace"))):
        assert hidden(SeekAndHide(lexicons, known=known), "Petit souci ce matin") == {"Petit": "NOM"}


def test_a_taught_name_is_not_taught_where_the_word_it_also_is_stands(lexicons):
    """What a reviewer marked once is taught with more care than a team's list: a word of the lists
    of two letters (a surrogate such as Au), a word written in capitals, a word of a nickname's shape
    in lower case and a variant in lower case are left as they are elsewhere."""
    from triage.seekhide.known import taught_names

    def taught(name, tag):
        return SeekAndHide(lexicons, known=taught_names([(name, tag)], "the review workspace"))

    def listed(name, tag):
        return SeekAndHide(lexicons, known=known_names_of([f"{name}\t{tag}"]))

    assert hidden(taught("Au", "SUR"), "on se voit ce soir Au fait") == {}
    assert hidden(taught("Petit", "NOM"), "JE PASSE CHEZ PETIT DEMAIN") == {}
    assert hidden(listed("Petit", "NOM"), "JE PASSE CHEZ PETIT DEMAIN") == {"PETIT": "NOM"}
    assert hidden(taught("Petit", "NOM"), "je passe chez Petit demain") == {"Petit": "NOM"}
    assert hidden(taught("Sisi", "SUR"), "mais sisi je viens") == {}
    assert hidden(taught("Sisi", "SUR"), "bisous a Sisi ce soir") == {"Sisi": "SUR"}
    assert hidden(listed("Sisi", "SUR"), "mais sisi je viens") == {"sisi": "SUR"}
    assert hidden(taught("Zorglubine", "PRE"), "on a vu zorglubime") == {}  # a variant in lower case
    assert hidden(taught("Zorglubine", "PRE"), "on a vu Zorglubime") == {"Zorglubime": "PRE"}
    assert hidden(taught("Zorglubine", "PRE"), "on a vu zorglubine") == {"zorglubine": "PRE"}
    assert hidden(listed("Zorglubine", "PRE"), "on a vu zorglubime") == {"zorglubime": "PRE"}


def test_a_taught_name_read_as_a_word_of_another_language_is_hidden_only_with_a_capital_mid_sentence(lexicons):
    from triage.seekhide.known import taught_names

    taught = SeekAndHide(lexicons, known=taught_names([("Will", "PRE")], "the review workspace"))
    listed = SeekAndHide(lexicons, known=known_names_of(["Will"]))
    english = "I will call you later tonight"  # a message in English: "will" is read as an English word
    assert hidden(taught, english) == {} and hidden(taught, "Will you come tonight with me") == {}
    assert hidden(listed, english) == {"will": "PRE"}  # the team's list hides it all the same
    assert hidden(taught, "je passe avec Will ce soir") == {"Will": "PRE"}


def test_a_variant_seekhide_reads_as_an_ordinary_word_is_not_hidden(lexicons):
    seeker = SeekAndHide(lexicons, known=known_names_of(["Lordia"]))
    assert SeekAndHide(lexicons).seek("jai perdu lordi").label == "NTA"  # read as an ordinary word (l'ordi)
    assert hidden(seeker, "jai perdu lordi") == {}
    assert hidden(seeker, "jai vu lordia") == {"lordia": "PRE"}
    assert hidden(seeker, "jai vu lordiaa") == {"lordiaa": "PRE"}
    assert hidden(seeker, "jai vu Lordi hier") == {"Lordi": "PRE"}  # with a capital, a variant all the same
    assert "roses" not in hidden(seeker, "des roses pour Rose")  # an ordinary word that is a variant: kept


def test_an_ordinary_word_one_edit_from_a_known_name_is_kept(lexicons):
    seeker = SeekAndHide(lexicons, known=known_names_of(["Mariane"]))
    assert hidden(seeker, "tu viens avec Mariane") == {"Mariane": "PRE"}
    assert hidden(seeker, "mon mari arrive demain") == {}
    assert hidden(seeker, "elle est mariee depuis juin") == {}


def test_short_names_match_only_as_written(lexicons):
    seeker = SeekAndHide(lexicons, known=known_names_of(["Bixo"]))
    assert hidden(seeker, "slt bixo") == {"bixo": "PRE"}
    assert hidden(seeker, "slt bixa") == {}  # one edit from a 4-letter name is not a variant


def test_both_words_of_an_entry_are_hidden_the_second_as_a_surname(seeker):
    assert hidden(seeker, "rdv avec Marie Durand lundi") == {"Marie": "PRE", "Durand": "NOM"}
    assert hidden(seeker, "durand a appelé")["durand"] == "NOM"


def test_a_tag_after_a_tab_is_the_names_tag(lexicons, seeker):
    assert hidden(seeker, "merci bibouchka")["bibouchka"] == "SUR"
    assert hidden(SeekAndHide(lexicons, known=known_names_of(["Zorglubine\tNOM"])), "vu Zorglubine") == {
        "Zorglubine": "NOM"}


def test_the_step_can_be_switched_off(lexicons, known_file):
    off = SeekAndHide(lexicons, off={"known-names"}, known=read_known_names(known_file))
    assert hidden(off, "slt Zorglubine") == {}


# ------------------------------------------------------------------ the file

@pytest.mark.parametrize("content, fragment", [
    ("Zorglubine\nBad\tXYZ\n", "line 2: the tag after the tab must be one of PRE, NOM, SUR"),
    ("# staff\nR2D2\n", "line 2: 'R2D2' is not a name"),
    ("Zorglubine\n\nJ\n", "line 3: a name of one letter"),
    ("\tPRE\n", "line 1: no name before the tab"),
    ("# only a comment\n\n", "no name in the file"),
])
def test_bad_lines_are_refused_naming_the_line(tmp_path, content, fragment):
    path = tmp_path / "names.txt"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(BadInput, match=fragment):
        read_known_names(path)


def test_a_line_that_is_not_utf8_is_refused_naming_it(tmp_path):
    path = tmp_path / "names.txt"
    path.write_bytes("Zorglubine\nHélène\n".encode("latin-1"))
    with pytest.raises(BadInput, match="line 2: not UTF-8"):
        read_known_names(path)


def test_the_cli_refuses_a_bad_file_in_one_line_before_writing(cli, tmp_path):
    source = write_table(tmp_path / "sms.csv", [["1", "slt Zorglubine"]], header=["id", "text"])
    names = tmp_path / "names.txt"
    names.write_text("Zorglubine\nDupont\tFOO\n", encoding="utf-8")
    out = tmp_path / "out"
    failed(cli("classify", source, "-o", out / "c.csv", "--no-chart", "--known-names", names), 1,
           "names.txt, line 2", "PRE, NOM, SUR")
    nothing_written(out)
    failed(cli("classify", source, "-o", out / "c.csv", "--no-chart", "--known-names", tmp_path / "absent.txt"),
           1, "--known-names: no such file", "absent.txt")


# ------------------------------------------------------------------ through the pipeline

TEXTS = ["coucou Zorglubine tu viens ?", "je lui ai offert une rose", "zorglubiiine arrive a 8h",
         "dis a Rose que jarrive", "ok merci", "Zorglubinne et Marie Durand sont la"]


def test_classify_hides_them_and_records_the_file_not_the_names(cli, tmp_path, known_file):
    source = write_table(tmp_path / "sms.csv", [[str(i), t] for i, t in enumerate(TEXTS)], header=["id", "text"])
    plain, with_names, ws = tmp_path / "plain.csv", tmp_path / "known.csv", tmp_path / "sms.review.sqlite"
    succeeded(cli("classify", source, "-o", plain, "--no-chart"))
    result = cli("classify", source, "-o", with_names, "--no-chart", "--known-names", known_file, "--workspace", ws)
    succeeded(result)
    assert "known names: 4 from participants.txt" in result.output
    rows = read_rows(with_names)
    anonymised = " ".join(row["anonymised"] for row in rows)
    for name in ("Zorglubine", "zorglubiiine", "Zorglubinne", "Rose", "Durand"):
        assert name not in anonymised
    assert "une rose" in anonymised
    assert "zorglubiiine" in " ".join(row["anonymised"] for row in read_rows(plain))  # left by the machines alone
    with Workspace.open(ws) as opened:
        settings = opened.classify_settings()
    digest = hashlib.sha256(known_file.read_bytes()).hexdigest()
    assert settings["known_names"] == {"file": "participants.txt", "names": 4}
    assert "Zorglubine" not in json.dumps(settings) and digest not in json.dumps(settings)


def test_the_api_takes_a_path_or_a_list(tmp_path, known_file):
    frame = pd.DataFrame({"text": TEXTS})
    by_path = triage.classify(frame, known_names=known_file)
    by_list = triage.classify(frame, known_names=["Zorglubine", "Rose", "Marie Durand", "Bibouchka\tSUR"])
    plain = triage.classify(frame)
    assert by_path["anonymised"].tolist() == by_list["anonymised"].tolist()
    assert "zorglubiiine" not in by_path["anonymised"][2] and "zorglubiiine" in plain["anonymised"][2]
    ws = tmp_path / "api.review.sqlite"
    triage.classify(frame, known_names=["Zorglubine"], workspace=ws)
    with Workspace.open(ws) as opened:
        settings = opened.classify_settings()
    assert settings["known_names"]["names"] == 1 and settings["known_names"]["file"] is None
    assert "Zorglubine" not in json.dumps(settings)
    with pytest.raises(BadInput, match="not a name"):
        triage.classify(frame, known_names=["Zorglubine", "2000"])


def test_worker_processes_get_the_names(tmp_path, known_file):
    source = write_table(tmp_path / "sms.csv", [[str(i), t] for i, t in enumerate(TEXTS * 4)], header=["id", "text"])
    run_classify(source, tmp_path / "one.csv", known_names=known_file, chunk_size=3, chart=False)
    run_classify(source, tmp_path / "two.csv", known_names=known_file, chunk_size=3, jobs=2, chart=False)
    assert (tmp_path / "one.csv").read_bytes() == (tmp_path / "two.csv").read_bytes()
    anonymised = " ".join(row["anonymised"] for row in read_rows(tmp_path / "two.csv"))
    assert "orglub" not in anonymised and "Durand" not in anonymised


def test_dask_workers_build_the_seeker_with_the_names(known_file):
    spec = engines.ClassifierSpec(model.default_model_path(), known_names=read_known_names(known_file))
    classifier = spec.build()
    assert classifier.seeker.known is not None
    assert "Zorglubine" not in classifier.rows([("1", "slt Zorglubine")])[0][6]


def test_a_known_name_keeps_its_tag_where_a_recognizer_reads_a_place(lexicons):
    from triage import recognizers

    text = "je pars à Florence demain"
    plain, _, _ = recognizers.apply(SeekAndHide(lexicons).analyse([text]), {"PRE", "LIE"})
    assert [tag for _, _, tag in plain[0]] == ["LIE"]
    known = SeekAndHide(lexicons, known=known_names_of(["Florence"]))
    spans, _, _ = recognizers.apply(known.analyse([text]), {"PRE", "LIE"})
    assert [(text[s:e], tag) for s, e, tag in spans[0]] == [("Florence", "PRE")]


def test_evaluate_takes_the_names_and_reports_them(tmp_path):
    rows = [[str(i), str(i % 3), text, "TA" if "orglub" in text else "NTA",
             json.dumps([[text.index(w), text.index(w) + len(w), "PRE"]] if (w := next(
                 (x for x in text.split() if "orglub" in x), "")) else [])]
            for i, text in enumerate(["slt zorglubiiine", "ok merci", "a plus zorglubinne", "je mange",
                                      "vu zorglubine hier", "bonne nuit"] * 4)]
    gold = write_table(tmp_path / "gold.csv", rows, header=["id", "donor", "text", "label", "spans"])
    names = tmp_path / "names.txt"
    names.write_text("Zorglubine\n", encoding="utf-8")
    from triage import model as model_module
    from triage.jobs import run_evaluate

    report = run_evaluate(gold, None, model_path=model_module.default_model_path(), budget=0.0, known_names=names)
    assert report.data["known_names"]["names"] == 1
    assert report.data["chosen"]["residual_spans"] == 0
    plain = run_evaluate(gold, None, model_path=model_module.default_model_path(), budget=0.0)
    assert plain.data["chosen"]["residual_spans"] > 0 and "known_names" not in plain.data


def test_the_spec_carries_the_names_to_workers_and_the_datasheet_names_the_file(known_file):
    import pickle

    from triage.publication.datasheet import _classify_settings_text

    names = read_known_names(known_file)
    spec = engines.ClassifierSpec(model.default_model_path(), known_names=names)
    assert pickle.loads(pickle.dumps(spec)).known_names == names
    assert pickle.loads(pickle.dumps(engines.ClassifierSpec(model.default_model_path()))).known_names is None
    text = _classify_settings_text({"policy": "budget", "hide": ["PRE"], "known_names": names.record()})
    assert "4 known names from participants.txt hidden with their variants" in text
    assert names.sha256[:12] not in text


def test_evaluate_refuses_known_names_with_the_ablation(cli, tmp_path, known_file):
    rows = [[str(i), str(i % 3), text, "NTA", "[]"] for i, text in enumerate(["ok merci", "je mange"] * 6)]
    gold = write_table(tmp_path / "gold.csv", rows, header=["id", "donor", "text", "label", "spans"])
    failed(cli("evaluate", gold, "--known-names", known_file, "--ablation", "--out-dir", tmp_path / "out"), 1,
           "--ablation", "--known-names")
    nothing_written(tmp_path / "out")


def test_classify_again_into_the_workspace_without_the_option_keeps_the_names_and_says_so(cli, tmp_path, known_file):
    source = write_table(tmp_path / "sms.csv", [[str(i), t] for i, t in enumerate(TEXTS)], header=["id", "text"])
    classified, ws = tmp_path / "c.csv", tmp_path / "sms.review.sqlite"
    succeeded(cli("classify", source, "-o", classified, "--no-chart", "--known-names", known_file, "--workspace", ws))
    again = cli("classify", source, "-o", classified, "--no-chart", "--workspace", ws, "--force")
    succeeded(again)
    assert "the 4 names from participants.txt an earlier classify was given are hidden again" in again.stderr
    anonymised = " ".join(row["anonymised"] for row in read_rows(classified))
    for name in ("Zorglubine", "zorglubiiine", "Zorglubinne"):
        assert name not in anonymised
    with Workspace.open(ws) as opened:
        assert opened.classify_settings()["known_names"]["names"] == 4
    # Another file replaces them (and is kept in turn).
    other = tmp_path / "other.txt"
    other.write_text("Bibouchka\n", encoding="utf-8")
    replaced = cli("classify", source, "-o", classified, "--no-chart", "--workspace", ws, "--force",
                   "--known-names", other)
    succeeded(replaced)
    assert "hidden again" not in replaced.stderr
    assert "zorglubiiine" in " ".join(row["anonymised"] for row in read_rows(classified))
    with Workspace.open(ws) as opened:
        assert opened.kept_known_names().source == "other.txt"


def test_the_api_keeps_the_workspaces_known_names_with_a_warning(tmp_path):
    frame = pd.DataFrame({"text": TEXTS})
    ws = tmp_path / "ws.sqlite"
    triage.classify(frame, workspace=ws, known_names=["Zorglubine"])
    with pytest.warns(UserWarning, match="hidden again") as caught:
        again = triage.classify(frame, workspace=ws)
    assert caught[0].filename == __file__  # shown at the caller's line, not inside sms-triage
    assert "zorglubiiine" not in again["anonymised"][2]
