"""The reviewer's decisions feed the routing: classify --workspace hides, in the messages still
to be read, the names a reviewer hid or taught, with their variants, and ranks them again."""

from __future__ import annotations

import csv

from conftest import read_rows, succeeded

from triage.review_workspace import Workspace
from triage.seekhide.known import merged, taught_names

# Invented messages: "Bidulon" is in no list; written in lower case, the machines leave it
# readable, and only a reviewer can tell it is a first name.
MESSAGES = [
    ("1", "Coucou c'est Bidulon, tu passes ce soir ?"),
    ("2", "jai vu bidulonn hier au marché"),
    ("3", "dis a bidulon que je serai en retard"),
    ("4", "ok à demain"),
    ("5", "bonne nuit"),
]


def write_corpus(path):
    with path.open("w", newline="", encoding="utf-8") as handle:
        csv.writer(handle).writerows([("id", "text"), *MESSAGES])


def hidden_words(path) -> dict[str, set[str]]:
    import json

    return {row["id"]: {row["text"][s:e] for s, e, _ in json.loads(row["hidden"])} for row in read_rows(path)}


def test_a_name_a_reviewer_hid_is_hidden_with_its_variants_when_classify_runs_again(cli, tmp_path):
    source, out, workspace = tmp_path / "sms.csv", tmp_path / "out.csv", tmp_path / "ws.sqlite"
    write_corpus(source)
    succeeded(cli("classify", source, "-o", out, "--workspace", workspace, "--no-chart", "--expert-budget", "1"))
    assert hidden_words(out)["2"] == set()  # the variant, with no cue before it, the machines leave readable
    start = MESSAGES[1][1].index("bidulonn")
    with Workspace.open(workspace) as opened:
        opened.decide("2", label="TA", spans=[[start, start + len("bidulonn"), "PRE"]], reviewer="ana")
        assert opened.taught_names() == [("bidulonn", "PRE")]
    result = cli("classify", source, "-o", out, "--workspace", workspace, "--no-chart", "--force")
    succeeded(result)
    assert "known names: 1 from the review workspace, hidden with their variants" in result.output
    hidden = hidden_words(out)
    assert hidden["3"] == {"bidulon"} and "Bidulon" in hidden["1"]  # its variants too
    with Workspace.open(workspace) as opened:  # the decided message is not asked again
        assert opened.item("2").status == "decided"
        assert [(e["spelling"], e["marked"], e["messages"]) for e in opened.taught()] == [("bidulonn", 1, 1)]
    listed = cli("review", out, "--workspace", workspace, "--learnt")
    succeeded(listed)
    assert "names taught to the next `triage classify --workspace` (1)" in listed.output
    assert "bidulonn  PRE  in 1 message  (marked in 1 message)" in listed.output
    released = cli("release", out, "--workspace", workspace, "-o", tmp_path / "corpus.csv", "--withhold-undecided",
                   "--inconsistent-ok")
    succeeded(released)
    sheet = next(tmp_path.glob("corpus*datasheet*.md")).read_text("utf-8")
    assert ("Learnt during the review: 0 spellings learnt as a name, 0 spellings as an ordinary word (never hidden); "
            "1 name taught to the classification") in sheet


def test_the_python_api_hides_the_names_a_reviewer_taught_as_the_command_line_does(tmp_path):
    import json
    import warnings

    import pandas as pd

    import triage

    frame = pd.DataFrame({"id": [i for i, _ in MESSAGES], "text": [t for _, t in MESSAGES]})
    workspace = tmp_path / "ws.sqlite"
    first = triage.classify(frame, workspace=workspace, expert_budget=1, id_column="id")
    assert json.loads(first.hidden[1]) == []  # the variant, with no cue before it, the machines leave readable
    start = MESSAGES[1][1].index("bidulonn")
    with Workspace.open(workspace) as opened:
        opened.decide("2", label="TA", spans=[[start, start + len("bidulonn"), "PRE"]], reviewer="ana")
    with warnings.catch_warnings(record=True) as said:
        warnings.simplefilter("always")
        again = triage.classify(frame, workspace=workspace, id_column="id")
    assert any("taught names: the 1 names the reviewers marked or learnt" in str(w.message) for w in said)
    hidden = {i: {t[s:e] for s, e, _ in json.loads(h)} for i, t, h in zip(again.id, again.text, again.hidden)}
    assert hidden["3"] == {"bidulon"} and "Bidulon" in hidden["1"]  # its variants too


def test_what_the_machines_hid_and_a_reviewer_accepted_teaches_nothing(cli, tmp_path):
    """A stray hide of the machines (a word at a sentence start hidden as a surname) accepted with the
    rest of a proposal must not spread to every message of the corpus at the next classification."""
    source, out, workspace = tmp_path / "sms.csv", tmp_path / "out.csv", tmp_path / "ws.sqlite"
    with source.open("w", newline="", encoding="utf-8") as handle:
        csv.writer(handle).writerows([("id", "text"), ("1", "Coucou c'est Bidulon, tu passes ce soir avec Julie ?"),
                                      *MESSAGES[1:]])
    succeeded(cli("classify", source, "-o", out, "--workspace", workspace, "--no-chart", "--expert-budget", "1"))
    with Workspace.open(workspace) as opened:
        proposal = opened.item("1").proposal
        assert proposal  # the machines hid Julie
        opened.decide("1", label="TA", spans=proposal, reviewer="ana")
        assert opened.taught_names() == [] and opened.taught() == []
        # Marked where the machines hid nothing: taught, until the decision is undone.
        opened.decide("4", label="TA", spans=[[0, 2, "SUR"]], reviewer="ana")
        assert opened.taught_names() == [("ok", "SUR")]
        opened.undo(reviewer="ana")
        assert opened.taught_names() == []


def test_spellings_learnt_as_names_for_the_corpus_are_taught_and_words_are_not(tmp_path, cli):
    source, out, workspace = tmp_path / "sms.csv", tmp_path / "out.csv", tmp_path / "ws.sqlite"
    write_corpus(source)
    succeeded(cli("classify", source, "-o", out, "--workspace", workspace, "--no-chart"))
    with Workspace.open(workspace) as opened:
        opened.learn("bidulon", kind="name", scope="corpus", reviewer="ana", tag="SUR")
        opened.learn("marché", kind="word", scope="corpus", reviewer="ana", confirm=True,
                      digest=opened.word_digest("marché"))
        assert opened.taught_names() == [("bidulon", "SUR")]


def test_taught_names_keep_names_only_and_merge_with_known_names():
    taught = taught_names([("Zorbalinette", "PRE"), ("06 12 34 56 78", "PRE"), ("Marie Durand", "NOM"),
                           ("x", "PRE"), ("Zorbalinette", "PRE")], "the review workspace")
    assert sorted(taught.entries) == [("Durand", "NOM", 1), ("Marie", "NOM", 0), ("Zorbalinette", "PRE", 0)]
    assert taught_names([("06", "TEL")], "w") is None
    from triage.seekhide.known import known_names_of

    both = merged(known_names_of(["Gloubinette"]), taught)
    assert both.count == 4 and "Gloubinette" in {w for w, _, _ in both.entries}
    assert merged(None, taught) is taught and merged(taught, None) is taught


def test_the_simulated_review_loop_teaches_the_names_read_to_the_messages_still_to_read():
    from triage.model.evaluation import simulate_review
    from triage.model.gold import GoldMessage
    from triage.model import default_model_path, load_predictor

    def said(text, name=None):
        start = text.find(name) if name else -1
        return GoldMessage(text, "TA" if name else "NTA", [(start, start + len(name), "PRE")] if name else [], "d")

    gold = [said(text, name) for text, name in [
        ("Coucou c'est Bidulon, tu passes ce soir ? Bidulon", "Bidulon"),
        ("dis a bidulon que je serai en retard", "bidulon"),
        ("jai vu bidulonn hier au marché", "bidulonn"),
        ("ok à demain", None), ("bonne nuit", None), ("merci beaucoup", None), ("on mange ensemble ?", None),
        ("je suis rentré", None), ("il pleut encore", None), ("à plus tard", None)]]
    rows = simulate_review(gold, load_predictor(default_model_path()), budget=0.2, rounds=2)
    assert [row["round"] for row in rows] == [1, 2]
    assert [row["expert_share"] for row in rows] == [0.1, 0.2]  # the budget spread over the rounds, exactly
    first = rows[0]
    assert first["names_taught"] == 1  # Bidulon, read in the first round (the riskiest message)
    assert first["residual_span_rate"] == 0.0  # ...then hidden with its variants in the messages not read
    alone = simulate_review(gold, load_predictor(default_model_path()), budget=0.1, rounds=1)[0]
    assert alone["residual_span_rate"] == 0.0 and alone["names_taught"] == 1


def test_the_simulated_reviewer_teaches_only_the_names_the_machines_left_readable():
    """As the workspace teaches a reviewer's marks, not the machines' hides a reviewer accepted."""
    from triage.model import default_model_path, load_predictor
    from triage.model.evaluation import simulate_review
    from triage.model.gold import GoldMessage

    def said(text, name):
        start = text.find(name)
        return GoldMessage(text, "TA", [(start, start + len(name), "PRE")], "d")

    gold = [said("rdv avec Julien ce soir", "Julien"), said("dis a bidulon que je serai en retard", "bidulon")]
    row = simulate_review(gold, load_predictor(default_model_path()), budget=1.0, rounds=1)[0]
    assert row["expert_share"] == 1.0
    assert row["names_taught"] == 1  # bidulon: the machines hid Julien, which the reviewer accepts


def test_a_name_the_loop_teaches_that_is_an_ordinary_word_costs_no_precision_where_it_opens_a_sentence():
    from triage.model.evaluation import simulate_review
    from triage.model.gold import GoldMessage
    from triage.model import default_model_path, load_predictor

    def said(text, name=None):
        start = text.find(name) if name else -1
        return GoldMessage(text, "TA" if name else "NTA", [(start, start + len(name), "NOM")] if name else [], "d")

    gold = [said("on a croisé Doux au marché", "Doux"), said("Doux ou fort, ce café ?"),
            said("Doux comme un agneau, le chien ce matin"),
            *map(said, ["ok à demain", "bonne nuit", "merci beaucoup", "on mange ensemble ?", "je suis rentré",
                        "il pleut encore", "à plus tard"])]
    row = simulate_review(gold, load_predictor(default_model_path()), budget=0.1, rounds=1)[0]
    assert row["names_taught"] == 1  # Doux, left readable in the riskiest message, which is read
    # Taught everywhere, it would hide the word opening two messages that name no one.
    assert row["over_masking_rate"] == 0.0 and row["person_precision"] is None


def test_evaluate_reports_the_review_loop_beside_the_budget_read_at_once(cli, tmp_path):
    from conftest import SAMPLE

    result = cli("evaluate", SAMPLE, "--no-cross-validation", "--simulate-review", "2", "--out-dir", tmp_path)
    succeeded(result)
    assert "| the budget read at once, no feedback | 10.0% |" in result.output
    import json

    loop = json.loads((tmp_path / "evaluate.json").read_text())["simulated_review"]
    assert loop["rounds"] == 2 and [row["round"] for row in loop["rows"]] == [1, 2]
    assert loop["rows"][-1]["expert_share"] == 0.1


def test_the_python_api_gives_the_review_loop_as_a_table():
    import pandas as pd

    import triage
    from conftest import SAMPLE

    report = triage.evaluate(pd.read_csv(SAMPLE, keep_default_na=False), no_cross_validation=True, simulate_review=2)
    loop = report.tables["simulated_review"]
    assert list(loop["round"]) == [1, 2] and list(loop["expert_share"]) == [0.05, 0.1]
