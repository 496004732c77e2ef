import csv
import json
from pathlib import Path

import numpy as np
import pytest

from triage.combiner import EXPERT, BudgetPolicy, Decision, Evidence, ExactBudget, PaperPolicy
from triage.model.evaluation import (
    SEED_FIGURES,
    field_metrics,
    identifiers_exposed,
    message_field_counts,
    policies,
    release_metrics,
    seeds_summary,
)
from triage.model.gold import GoldMessage
from triage.seekhide import SeekAndHide

from conftest import read_rows


@pytest.fixture(scope="module")
def seeker(lexicons):
    return SeekAndHide(lexicons)


def test_release_metrics_on_a_hand_example(seeker):
    gold = [
        GoldMessage("salut Kiki et Lola", "TA", [(6, 10, "PRE"), (14, 18, "PRE")]),
        GoldMessage("ok merci", "NTA", []),
        GoldMessage("appelle Zaza", "TA", [(8, 12, "PRE")]),
    ]
    results = [seeker.seek(m.text) for m in gold]
    decisions = [
        Decision("TA", 0.1, [(14, 18, "PRE"), (0, 5, "PRE")]),  # Kiki left readable; 'salut' over-masked
        Decision("NTA", 0.0, []),
        Decision(EXPERT, 0.9, []),  # the expert handles it perfectly
    ]
    m = release_metrics(gold, results, decisions)
    assert m["gold_spans"] == 3 and m["residual_spans"] == 1
    assert m["residual_span_rate"] == pytest.approx(1 / 3)
    assert m["message_leak_rate"] == pytest.approx(1 / 2)
    assert m["expert_share"] == pytest.approx(1 / 3)
    # Ordinary words in released messages: salut, et (message 1), ok, merci: one hidden.
    assert m["over_masking_rate"] == pytest.approx(1 / 4)


def test_an_entity_is_protected_only_when_every_mention_is_hidden(seeker):
    text = "Kiki a vu Kiki et Lola"
    message = GoldMessage(text, "TA", [(0, 4, "SUR"), (10, 14, "SUR"), (18, 22, "PRE")], "donor-1")
    released = Decision("TA", 0.1, [(0, 4, "SUR"), (18, 22, "PRE"), (7, 9, "PRE")])  # 2nd Kiki readable; 'vu' hidden
    counts = message_field_counts(message, seeker.seek(text), released)
    assert counts["entities"] == 2 and counts["protected"] == 1  # Kiki (2 mentions, one readable), Lola
    assert counts["protected:PRE"] == 1 and counts.get("protected:SUR", 0) == 0
    assert counts["redacted"] == 0  # something readable: not a full redact
    assert (counts["gold_tokens"], counts["tp"], counts["hidden_tokens"]) == (3, 2, 3)  # 'vu' is a false positive
    expert = message_field_counts(message, seeker.seek(text), Decision(EXPERT, 0.9, []))
    assert expert["protected"] == 2 and expert["redacted"] == 1 and expert["tp"] == expert["gold_tokens"] == 3


def test_field_metrics_give_intervals_over_donors(seeker):
    gold = [GoldMessage("salut Kiki", "TA", [(6, 10, "SUR")], donor) for donor in ("a", "b", "c", "d")]
    results = [seeker.seek(m.text) for m in gold]
    hidden, shown = Decision("TA", 0.1, [(6, 10, "SUR")]), Decision("NTA", 0.0, [])
    field = field_metrics(gold, results, [hidden, hidden, hidden, shown], resamples=200)
    recall = field["overall"]["entity_recall"]
    assert (recall["value"], recall["of"]) == (0.75, 4) and field["donors"] == 4 and field["by_donor"]
    assert 0.0 <= recall["low"] < 0.75 < recall["high"] <= 1.0
    assert field["by_category"]["SUR"]["residual_span_rate"]["value"] == 0.25
    one_donor = field_metrics(gold[:1], results[:1], [hidden], resamples=50)["overall"]["full_redact_rate"]
    assert one_donor["low"] == one_donor["high"] == one_donor["value"] == 1.0


def test_a_span_counts_as_hidden_only_when_all_its_letters_are():
    gold = [GoldMessage("Jean-Marc vient", "TA", [(0, 9, "PRE")])]
    results = [SeekAndHide.__new__(SeekAndHide)]  # words are not needed for spans
    results[0] = type("R", (), {"words": []})()
    partly = release_metrics(gold, results, [Decision("TA", 0, [(0, 4, "PRE")])])
    fully = release_metrics(gold, results, [Decision("TA", 0, [(0, 4, "PRE"), (5, 9, "PRE")])])
    assert partly["residual_spans"] == 1 and fully["residual_spans"] == 0  # the hyphen may stay


def test_the_budget_policy_hides_likely_names_and_routes_the_riskiest():
    evidence = [
        Evidence("UNTAGGED", 0.2, [], [(0, 4, "PRE", 0.9)]),  # hidden by the word scorer: TA
        Evidence("NTA", 0.1, [], [(0, 4, "PRE", 0.1)]),  # low risk: NTA
        Evidence("UNTAGGED", 0.9, [], [(0, 4, "PRE", 0.35)]),  # risky: expert
    ]
    decisions = BudgetPolicy(risk_threshold=0.4, hide_threshold=0.5).decide(evidence)
    assert [d.decision for d in decisions] == ["TA", "NTA", EXPERT]
    assert decisions[0].hidden == [(0, 4, "PRE")]
    assert decisions[2].risk > decisions[1].risk


def test_the_paper_policy_is_table_2():
    cases = [("TA", 0.9, "TA"), ("TA", 0.1, EXPERT), ("NTA", 0.9, EXPERT), ("NTA", 0.1, "NTA"),
             ("UNTAGGED", 0.9, "TA"), ("UNTAGGED", 0.1, "NTA")]
    decisions = PaperPolicy().decide([Evidence(s, p, []) for s, p, _ in cases])
    assert [d.decision for d in decisions] == [expected for *_, expected in cases]


def test_each_budget_sends_exactly_its_share_the_riskiest_ties_in_input_order():
    # Ten messages: risk grows with the message model's score; three tie at 0.8.
    scores = [0.9, 0.8, 0.8, 0.8, 0.1, 0.0, 0.0, 0.0, 0.0, 0.0]
    evidence = [Evidence("NTA", score, []) for score in scores]

    def sent(budget):
        return [i for i, d in enumerate(policies(evidence, [budget])[budget].decide(evidence)) if d.decision == EXPERT]

    assert sent(0.0) == []
    assert sent(0.2) == [0, 1]  # of the three tied, the first in input order (a threshold sent only one)
    assert sent(0.25) == [0, 1, 2]  # 2.5 messages, rounded half up, as classify rounds
    assert sent(0.5) == [0, 1, 2, 3, 4]
    assert len(sent(1.0)) == 10
    others = ExactBudget(0.2).decide(evidence)[2:]
    assert {d.decision for d in others} == {"NTA"}  # the rest decided as without a budget


def test_evaluate_sends_the_messages_classify_sends(cli, tmp_path):
    """With a model file, the messages evaluate counts as read by the expert are those that
    `triage classify` sends with the same budget."""
    from pathlib import Path

    from triage.model.evaluation import evidence_from_model
    from triage.model.gold import labelled_gold
    from triage.io.messages import ReadOptions
    from triage.model import default_model_path, load_predictor
    from triage.model.training import analyse

    demo = Path(__file__).resolve().parent.parent / "data" / "sample_sms.csv"
    gold, _ = labelled_gold(demo, ReadOptions())
    evidence = evidence_from_model(analyse(gold), load_predictor(default_model_path()))
    out = tmp_path / "classified.csv"
    # 5.6% of 260 messages is 14.56: classify sends 15 (rounded), where a threshold sent at most 14.
    assert cli("classify", demo, "-o", out, "--expert-budget", "0.056", "--no-chart").exit_code == 0
    classified = [row["decision"] == EXPERT for row in read_rows(out)]
    evaluated = [d.decision == EXPERT for d in ExactBudget(0.056).decide(evidence)]
    assert evaluated == classified and sum(evaluated) == 15


NAMES = ["Julie", "Kevin", "Sophie", "Nicolas", "Chloé", "Karim", "Léa", "Hugo", "Inès", "Yanis", "Manon", "Lucas"]


def write_gold(path, tag="PRE", spans_column="spans"):
    """24 messages naming someone (a gold span tagged `tag`) and 24 without, over 6 donors."""
    rows = []
    for i, name in enumerate(NAMES * 2):
        text = f"rdv avec {name} à 18h"
        rows.append([text, "TA", json.dumps([[9, 9 + len(name), tag]]), str(i % 6)])
    for i, text in enumerate(["ok", "jarrive", "bonne nuit", "tkt", "a plus", "merci", "trop bien", "on mange ?",
                              "je suis la", "bisous", "il pleut", "c cool"] * 2):
        rows.append([text, "NTA", "[]", str(i % 6)])
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["text", "label", spans_column, "donor"])
        writer.writerows(rows)
    return path


def test_triage_evaluate_on_a_written_gold_file(cli, tmp_path):
    gold = write_gold(tmp_path / "gold.csv")
    out = tmp_path / "eval"
    result = cli("evaluate", gold, "--out-dir", out, "--folds", "3")
    assert result.exit_code == 0, result.output
    data = json.loads((out / "evaluate.json").read_text("utf-8"))
    assert data["cross_validated"]["how"] == ("a model trained on your gold, cross-validated "
                                              "(3-fold cross-validation grouped by donor, features rich)")
    assert 0.0 <= data["chosen"]["residual_span_rate"] <= 1.0
    assert data["paper_policy"]["gold_spans"] == 24
    assert data["cross_validated"]["paper_policy"]["gold_spans"] == 24
    assert (out / "evaluate.png").read_bytes().startswith(b"\x89PNG")
    assert "residual span rate" in (out / "evaluate.md").read_text("utf-8")


def test_evaluate_reports_the_model_classify_uses_first_and_the_cross_validated_one_apart(cli, tmp_path):
    """Without --model, the main figures are the embedded model's, as classify would route the
    messages, the same as with --model naming that model; the model trained on the gold and
    cross-validated comes after, named as such."""
    from triage.model import Model, default_model_path

    gold = write_gold(tmp_path / "gold.csv")
    result = cli("evaluate", gold, "--out-dir", tmp_path / "default", "--folds", "3")
    assert result.exit_code == 0, result.output
    data = json.loads((tmp_path / "default" / "evaluate.json").read_text("utf-8"))
    fingerprint = Model.default().metadata["metadata_sha256"]
    assert data["model_fingerprint"] == fingerprint
    assert data["how"] == f"the model classify uses: the embedded model (fingerprint {fingerprint[:12]})"
    named = cli("evaluate", gold, "--model", default_model_path(), "--out-dir", tmp_path / "named", "--folds", "3")
    assert named.exit_code == 0, named.output
    same = json.loads((tmp_path / "named" / "evaluate.json").read_text("utf-8"))
    for key in ("chosen", "paper_policy", "budget_curve", "model", "field", "how"):
        assert data[key] == same[key], key
    used = result.output.index("## The model classify uses: the embedded model (fingerprint")
    crossed = result.output.index("## A model trained on your gold, cross-validated (3-fold")
    assert used < crossed
    report = (tmp_path / "default" / "evaluate.md").read_text("utf-8")
    assert "## The model classify uses" in report and "## A model trained on your gold, cross-validated" in report


def test_no_cross_validation_reports_the_model_classify_uses_alone(cli, tmp_path):
    # Two messages of each class: too few for 3 folds, but the model classify uses needs none.
    rows = [["rdv avec Julie à 18h", "TA", json.dumps([[9, 14, "PRE"]])],
            ["appelle Kevin stp", "TA", json.dumps([[8, 13, "PRE"]])],
            ["ok", "NTA", "[]"], ["bonne nuit", "NTA", "[]"]]
    gold = tmp_path / "small.csv"
    with gold.open("w", newline="", encoding="utf-8") as handle:
        csv.writer(handle).writerows([["text", "label", "spans"], *rows])
    refused = cli("evaluate", gold, "--folds", "3", "--out-dir", tmp_path / "cv")
    assert refused.exit_code == 1 and "messages of each class" in refused.output
    result = cli("evaluate", gold, "--folds", "3", "--no-cross-validation", "--out-dir", tmp_path / "ev")
    assert result.exit_code == 0, result.output
    data = json.loads((tmp_path / "ev" / "evaluate.json").read_text("utf-8"))
    assert data["cross_validated"] is None and data["paper_policy"]["gold_spans"] == 2
    assert "cross-validated" not in result.output


def test_the_spans_column_can_have_another_name(cli, tmp_path):
    gold = write_gold(tmp_path / "gold.csv", spans_column="entites")
    refused = cli("evaluate", gold, "--no-cross-validation", "--out-dir", tmp_path / "no")
    assert refused.exit_code == 1 and "no 'spans' column" in refused.output
    result = cli("evaluate", gold, "--no-cross-validation", "--spans-column", "entites", "--out-dir", tmp_path / "ev")
    assert result.exit_code == 0, result.output
    assert json.loads((tmp_path / "ev" / "evaluate.json").read_text("utf-8"))["paper_policy"]["gold_spans"] == 24


@pytest.mark.parametrize("tag", ["PERSON", "pre", "LOC", ""])
def test_a_gold_tag_outside_the_ten_categories_is_refused_in_one_line(cli, tmp_path, tag):
    from conftest import failed

    gold = write_gold(tmp_path / "gold.csv", tag=tag)
    failed(cli("evaluate", gold, "--out-dir", tmp_path / "ev"), 1,
           "gold.csv: line 2: span [9, 14, " + tag + "]", repr(tag), "PRE NOM SUR TEL MEL URL ADR COD LIE MAR")
    assert not (tmp_path / "ev").exists()


def test_evaluate_shows_its_progress_step_by_step(monkeypatch, tmp_path):
    """A bar (on stderr, when it is a terminal) advances through the analysis, each fold, the
    model classify uses and each ablation step, and ends full."""
    from contextlib import contextmanager

    import triage.pipeline.progress
    from triage.jobs import run_evaluate
    from triage.seekhide import steps as seekhide_steps

    bars = []

    @contextmanager
    def recording(description, total):
        bar = {"description": description, "total": total, "done": []}
        bars.append(bar)
        yield lambda doing=None: bar["done"].append(doing)

    monkeypatch.setattr(triage.pipeline.progress, "steps", recording)
    gold = write_gold(tmp_path / "gold.csv")
    run_evaluate(gold, None, folds=2)
    assert bars == []  # no bar unless asked
    run_evaluate(gold, None, folds=2, progress=True, ablation=True)
    (bar,) = bars
    assert bar["description"] == f"evaluating {gold}"
    assert bar["total"] == len(bar["done"]) == 2 + 2 + 2 + len(seekhide_steps.switchable())
    assert bar["done"][:6] == ["analysing the gold", "a model trained on the gold, cross-validated", None, None,
                               "the model classify uses", "each step switched off in turn"]


def test_evaluate_shows_its_bar_before_reading_the_gold_and_loading_the_model(monkeypatch, tmp_path):
    """From its first second: the bar is up while the gold is read and the model loaded."""
    from contextlib import contextmanager

    import triage.jobs
    import triage.model
    import triage.pipeline.progress

    seen, opened = [], []

    @contextmanager
    def recording(description, total):
        opened.append(description)
        yield lambda doing=None: None

    def watching(name, real):
        def run(*args, **kwargs):
            seen.append((name, list(opened)))
            return real(*args, **kwargs)
        return run

    monkeypatch.setattr(triage.pipeline.progress, "steps", recording)
    monkeypatch.setattr(triage.jobs, "labelled_gold", watching("gold", triage.jobs.labelled_gold))
    monkeypatch.setattr(triage.model, "load_predictor", watching("model", triage.model.load_predictor))
    gold = write_gold(tmp_path / "gold.csv")
    triage.jobs.run_evaluate(gold, None, folds=3, progress=True)
    assert [name for name, _ in seen] == ["gold", "model"]
    assert all(bars == [f"evaluating {gold}"] for _, bars in seen), seen


def test_evaluate_needs_gold_spans(cli, tmp_path):
    gold = tmp_path / "gold.csv"
    gold.write_text("text,label\nok,NTA\n", "utf-8")
    result = cli("evaluate", gold)
    assert result.exit_code == 1 and "no 'spans' column" in result.output


def test_on_the_development_corpus_the_budget_policy_beats_the_paper(dev_corpus, tmp_path, cli):
    result = cli("evaluate", dev_corpus, "--out-dir", tmp_path)
    assert result.exit_code == 0, result.output
    data = json.loads((tmp_path / "evaluate.json").read_text("utf-8"))
    for part in (data, data["cross_validated"]):  # the model classify uses, and one trained on the corpus
        assert part["chosen"]["residual_span_rate"] < part["paper_policy"]["residual_span_rate"] / 3
        assert part["chosen"]["expert_share"] <= 0.10 + 1e-9
        assert part["chosen"]["over_masking_rate"] <= 0.02
    # The recorded evaluation of the embedded model is that of both development files
    # (tests/test_docs.py checks it against docs/results/), and this file's cross-validation is
    # docs/results/evaluate.json's.
    recorded = json.loads((Path(__file__).resolve().parent.parent / "docs" / "results" / "evaluate.json")
                          .read_text("utf-8"))["cross_validated"]["chosen"]
    measured = data["cross_validated"]["chosen"]
    for key in ("residual_span_rate", "message_leak_rate", "over_masking_rate"):
        assert round(recorded[key], 4) == round(measured[key], 4), key


def test_the_ablation_switches_each_seekhide_step_off_and_shows_what_it_brings(cli, tmp_path):
    from pathlib import Path

    from triage.model import default_model_path
    from triage.seekhide import STEPS

    demo = Path(__file__).resolve().parent.parent / "data" / "sample_sms.csv"
    out = tmp_path / "ev"
    # Two folds: each step off is cross-validated as with five, at less than half the training.
    result = cli("evaluate", demo, "--model", default_model_path(), "--ablation", "--folds", "2", "--out-dir", out)
    assert result.exit_code == 0, result.output
    rows = json.loads((out / "evaluate.json").read_text())["ablation"]
    assert [row["off"] for row in rows] == [None, *STEPS]
    by_step = {row["off"]: row for row in rows}
    # Without the repetition heuristic, 'merciiiii' and the like are no longer known words:
    # Seek&Hide leaves more messages untagged.
    assert by_step["repetition"]["untagged_share"] > by_step[None]["untagged_share"]
    assert "What each step brings (ablation" in result.output


# ---------------------------------------------------------------------- precision, identifiers, short spans


def hand_gold():
    """Two donors; what the machines hid is written beside each message."""
    gold = [
        GoldMessage("Salut Lea, tu vois Paul ce soir ?", "TA", [(6, 9, "PRE"), (19, 23, "PRE")], "a"),
        GoldMessage("Paul et Lea arrivent", "TA", [(0, 4, "PRE"), (8, 11, "PRE")], "a"),
        GoldMessage("bisous de Jo", "TA", [(10, 12, "PRE")], "b"),
        GoldMessage("rdv chez Martin", "TA", [(9, 15, "NOM")], "b"),
        GoldMessage("Lea a appelé", "TA", [(0, 3, "PRE")], "b"),
    ]
    decisions = [
        Decision("TA", 0.1, [(6, 9, "PRE"), (0, 5, "SUR")]),  # Lea hidden, Paul readable, 'Salut' hidden as a nickname
        Decision("TA", 0.1, [(0, 4, "PRE"), (8, 11, "PRE"), (12, 20, "LIE")]),  # 'arrivent' hidden as a place
        Decision("NTA", 0.0, []),  # Jo readable
        Decision(EXPERT, 0.9, []),  # read by the expert: Martin protected, nothing counted as hidden by the machines
        Decision("TA", 0.1, [(0, 3, "PRE"), (0, 3, "PRE")]),  # the same span twice counts once
    ]
    return gold, decisions


def test_the_precision_of_what_is_hidden_and_the_residual_without_short_spans_on_a_hand_example(seeker):
    gold, decisions = hand_gold()
    m = release_metrics(gold, [seeker.seek(g.text) for g in gold], decisions)
    # Hidden in messages released without a human: Lea, Salut; Paul, Lea, arrivent; Lea. Four on a gold span.
    assert (m["hidden_spans"], m["hidden_precision"]) == (6, pytest.approx(4 / 6))
    # As a person (PRE, NOM, SUR): all but 'arrivent'.
    assert (m["person_hidden_spans"], m["person_precision"]) == (5, pytest.approx(4 / 5))
    # Seven gold spans, Paul (message 1) and Jo readable; Jo has two letters: left out of the second rate.
    assert m["residual_span_rate"] == pytest.approx(2 / 7)
    assert (m["gold_spans_without_short"], m["residual_spans_without_short"]) == (6, 1)
    assert m["residual_span_rate_without_short"] == pytest.approx(1 / 6)


def test_identifiers_are_one_spelling_of_one_donor_exposed_by_any_readable_mention(seeker):
    gold, decisions = hand_gold()
    field = field_metrics(gold, [seeker.seek(g.text) for g in gold], decisions, resamples=200)
    overall = field["overall"]
    # Donor a: lea (hidden twice), paul (readable in message 1, hidden in message 2: exposed).
    # Donor b: jo (readable), martin (the expert), lea (hidden): donor b's Lea is another identifier.
    assert (overall["identifiers_exposed"]["value"], overall["identifiers_exposed"]["of"]) == (pytest.approx(2 / 5), 5)
    # Message by message (TAB's entities), message 2's Paul counted protected: 2 of 7 entities readable.
    assert overall["entity_recall"]["value"] == pytest.approx(5 / 7)
    assert field["by_category"]["PRE"]["identifiers_exposed"]["value"] == pytest.approx(2 / 4)
    assert field["by_category"]["NOM"]["identifiers_exposed"]["value"] == 0.0
    assert overall["hidden_precision"]["value"] == pytest.approx(4 / 6)
    assert overall["person_precision"]["value"] == pytest.approx(4 / 5)
    assert overall["residual_without_short"]["value"] == pytest.approx(1 / 6)
    assert 0.0 <= overall["person_precision"]["low"] <= 0.8 <= overall["person_precision"]["high"] <= 1.0
    by_tag = {tag: (rates["hidden_precision"]["value"], rates["hidden_precision"]["of"])
              for tag, rates in field["by_hidden_tag"].items()}
    assert by_tag == {"LIE": (0.0, 1), "PRE": (1.0, 4), "SUR": (0.0, 1)}
    assert identifiers_exposed(gold, decisions) == pytest.approx(2 / 5)
    # Without donors, each message is its own: Paul's two mentions are two identifiers, one exposed.
    alone = [GoldMessage(g.text, g.label, g.spans) for g in gold]
    assert identifiers_exposed(alone, decisions) == pytest.approx(2 / 7)


def test_the_seeds_summary_gives_mean_and_standard_deviation():
    runs = [{name: 0.02 for name in SEED_FIGURES}, {name: 0.04 for name in SEED_FIGURES}]
    runs[1]["person_precision"] = None  # nothing hidden as a person with that seed
    summary = seeds_summary(runs, [0, 1])
    assert summary["seeds"] == [0, 1]
    residual = summary["figures"]["residual_span_rate"]
    assert residual["mean"] == pytest.approx(0.03) and residual["sd"] == pytest.approx(0.0141421, rel=1e-4)
    assert residual["values"] == [0.02, 0.04]
    assert summary["figures"]["person_precision"] == {"mean": 0.02, "sd": 0.0, "values": [0.02, None]}


def write_hand_gold(path):
    """Ten messages of two donors; the embedded model hides every first name and surname here
    (as a first name), 'Kevin' too, which this gold leaves untagged, and not 'puce'."""
    rows = [
        ("Salut Julie, tu vois Thomas ce soir ?", "TA", [[6, 11, "PRE"], [21, 27, "PRE"]], "a"),
        ("Thomas et Julie arrivent a 20h", "TA", [[0, 6, "PRE"], [10, 15, "PRE"]], "a"),
        ("bisous de Jo", "TA", [[10, 12, "PRE"]], "b"),
        ("rdv chez Martin demain", "TA", [[9, 15, "NOM"]], "b"),
        ("Julie a appelé", "TA", [[0, 5, "PRE"]], "b"),
        ("Merci Kevin pour tout", "NTA", [], "b"),
        ("ok a demain", "NTA", [], "a"),
        ("je suis dans le bus", "NTA", [], "a"),
        ("Bonne nuit ma puce", "TA", [[14, 18, "SUR"]], "a"),
        ("la puce dort", "TA", [[3, 7, "SUR"]], "a"),
    ]
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["text", "label", "spans", "donor"])
        writer.writerows([text, label, json.dumps(spans), donor] for text, label, spans, donor in rows)
    return path


def test_evaluate_reports_precision_identifiers_exposed_and_the_residual_without_short_spans(cli, tmp_path):
    gold = write_hand_gold(tmp_path / "gold.csv")
    out = tmp_path / "ev"
    result = cli("evaluate", gold, "--no-cross-validation", "--expert-budget", "0", "--out-dir", out)
    assert result.exit_code == 0, result.output
    data = json.loads((out / "evaluate.json").read_text("utf-8"))
    chosen, overall = data["chosen"], data["field"]["overall"]
    # Nine gold spans, the two 'puce' readable; without Jo (two letters), eight.
    assert chosen["residual_span_rate"] == pytest.approx(2 / 9)
    assert chosen["residual_span_rate_without_short"] == pytest.approx(2 / 8)
    # Eight spans hidden as a first name, 'Kevin' not a gold span.
    assert (chosen["hidden_spans"], chosen["hidden_precision"], chosen["person_precision"]) == (8, 7 / 8, 7 / 8)
    assert overall["person_precision"]["value"] == 7 / 8
    assert data["field"]["by_hidden_tag"]["PRE"]["hidden_precision"]["value"] == 7 / 8
    # Identifiers: julie, thomas, puce (donor a); jo, martin, julie (donor b): puce exposed.
    assert (overall["identifiers_exposed"]["value"], overall["identifiers_exposed"]["of"]) == (1 / 6, 6)
    assert overall["residual_without_short"]["value"] == 2 / 8
    report = (out / "evaluate.md").read_text("utf-8")
    assert "| residual without short spans | identifiers exposed | precision of what is hidden | person precision |" in report
    assert "| PRE | 8 | 87.5% (" in report
    # Surnames not asked for: Martin is an ordinary word, and hiding it is no longer on a gold span.
    only_first_names = cli("evaluate", gold, "--no-cross-validation", "--expert-budget", "0", "--hide", "PRE,SUR",
                           "--out-dir", tmp_path / "pre")
    assert only_first_names.exit_code == 0, only_first_names.output
    pre = json.loads((tmp_path / "pre" / "evaluate.json").read_text("utf-8"))
    assert pre["chosen"]["person_precision"] == 6 / 8
    assert pre["field"]["overall"]["identifiers_exposed"]["value"] == 1 / 5


# ---------------------------------------------------------------------- several gold files, seeds


def write_other_gold(path):
    """20 messages of 5 donors (named as write_gold's first five): 10 naming someone, 10 without."""
    rows = []
    for i, name in enumerate(["Emma", "Louis", "Camille", "Jules", "Sarah", "Adam", "Zoé", "Nathan", "Lina", "Théo"]):
        text = f"tu as vu {name} hier ?"
        rows.append([text, "TA", json.dumps([[9, 9 + len(name), "PRE"]]), str(i % 5)])
    for i, text in enumerate(["oui", "jsuis en retour", "a toute", "bien recu", "dodo", "on verra", "pas de souci",
                              "je rentre", "super", "a demain"]):
        rows.append([text, "NTA", "[]", str(i % 5)])
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["text", "label", "spans", "donor"])
        writer.writerows(rows)
    return path


def test_several_gold_files_are_cross_validated_together_and_reported_file_by_file(cli, tmp_path):
    first, second = write_gold(tmp_path / "first.csv"), write_other_gold(tmp_path / "second.csv")
    out = tmp_path / "ev"
    # Donors 0-5 and 0-4: eleven donors when the files' donors are kept apart, six if they were mixed up.
    result = cli("evaluate", first, second, "--folds", "11", "--out-dir", out)
    assert result.exit_code == 0, result.output
    data = json.loads((out / "evaluate.json").read_text("utf-8"))
    assert data["gold"] == [str(first), str(second)] and data["messages"] == 68
    assert "chosen" not in data  # every figure is a file's
    one, two = data["files"]
    assert (one["gold"], one["messages"], two["gold"], two["messages"]) == (str(first), 48, str(second), 20)
    for part, spans, read, donors in ((one, 24, 5, 6), (two, 10, 2, 5)):
        for model in (part, part["cross_validated"]):
            # The budget is read in each file: 10% of 48 messages is 5, of 20 is 2.
            assert model["chosen"]["gold_spans"] == spans and model["chosen"]["expert_messages"] == read
            assert model["field"]["donors"] == donors
            assert "person_precision" in model["chosen"] and "identifiers_exposed" in model["field"]["overall"]
        assert part["cross_validated"]["how"] == ("a model trained on your gold files, cross-validated (11-fold "
                                                  "cross-validation grouped by donor over the files together, "
                                                  "features rich)")
    report = (out / "evaluate.md").read_text("utf-8")
    assert report.startswith(f"# End-to-end evaluation on {first} and {second}")
    assert report.index(f"## {first}") < report.index("### The model classify uses") < report.index(f"## {second}")
    assert report.count("### A model trained on your gold files, cross-validated") == 2
    assert (out / "evaluate.png").read_bytes().startswith(b"\x89PNG")


def test_donors_dealt_at_random_stay_whole_and_each_message_is_tested_once():
    from triage.model.training import dealt_folds

    groups = ["a"] * 5 + ["b"] * 3 + ["c"] * 2 + ["d"] + ["e"] * 4
    for seed in (1, 2):
        folds = dealt_folds(groups, 2, seed)
        tested = sorted(i for _, test in folds for i in test.tolist())
        assert tested == list(range(len(groups)))
        for train, test in folds:
            assert not {groups[i] for i in train} & {groups[i] for i in test}
    assert any(dealt_folds(groups, 2, seed)[0][1].tolist() != dealt_folds(groups, 2, 1)[0][1].tolist()
               for seed in range(2, 8))


def test_several_gold_sets_are_given_their_own_evidence_from_one_cross_validation(tmp_path):
    from triage.model.gold import labelled_gold
    from triage.io.messages import ReadOptions
    from triage.model.training import analyse, cross_validated_evidence, cross_validated_evidence_of

    gold, _ = labelled_gold(write_gold(tmp_path / "gold.csv"), ReadOptions())
    analysed = analyse(gold)
    (alone,) = cross_validated_evidence_of([analysed], folds=3)
    assert [e.score for e in alone] == [e.score for e in cross_validated_evidence(analysed, folds=3)]
    first, second = cross_validated_evidence_of([analyse(gold[:30]), analyse(gold[30:])], folds=3)
    assert (len(first), len(second)) == (30, 18)
    # Each set's evidence points into its own messages: 'rdv avec Julie à 18h' first, ordinary words in the second.
    assert (9, 14) in [(s, e) for s, e, *_ in first[0].hidden + first[0].candidates]
    assert all(e <= len(gold[30 + i].text) for i, found in enumerate(second) for _, e, *_ in found.hidden + found.candidates)


def test_seeds_repeat_the_cross_validation_and_give_mean_and_standard_deviation(cli, tmp_path):
    gold = write_gold(tmp_path / "gold.csv")
    result = cli("evaluate", gold, "--folds", "3", "--seeds", "3", "--seed", "4", "--out-dir", tmp_path / "ev")
    assert result.exit_code == 0, result.output
    data = json.loads((tmp_path / "ev" / "evaluate.json").read_text("utf-8"))
    seeds = data["cross_validated"]["seeds"]
    assert seeds["seeds"] == [4, 5, 6]
    residual = seeds["figures"]["residual_span_rate"]
    assert residual["values"][0] == data["cross_validated"]["chosen"]["residual_span_rate"]  # the first is the report's
    assert residual["mean"] == pytest.approx(sum(residual["values"]) / 3)
    assert "Over 3 seeds of the cross-validation (4, 5, 6" in (tmp_path / "ev" / "evaluate.md").read_text("utf-8")
    single = cli("evaluate", gold, "--folds", "3", "--seed", "4", "--out-dir", tmp_path / "one")
    assert single.exit_code == 0, single.output
    alone = json.loads((tmp_path / "one" / "evaluate.json").read_text("utf-8"))["cross_validated"]
    assert alone["chosen"] == data["cross_validated"]["chosen"]  # more seeds leave the report's run as it was
    assert alone["seeds"]["seeds"] == [4] and "Over 1 seeds" not in single.output


def test_labelled_adds_a_model_from_labels_alone_on_the_files_own_messages(cli, tmp_path):
    first, second = write_gold(tmp_path / "first.csv"), write_other_gold(tmp_path / "second.csv")
    result = cli("evaluate", first, second, "--folds", "3", "--seeds", "2", "--labelled", "30", "--out-dir", tmp_path / "ev")
    assert result.exit_code == 0, result.output
    data = json.loads((tmp_path / "ev" / "evaluate.json").read_text("utf-8"))
    # 30 of the first file's 48 messages are drawn; the second holds 20: all of them.
    labels = [part["cross_validated"]["labels_only"] for part in data["files"]]
    assert [part["labelled"] for part in labels] == [30, 20]
    assert labels[0]["how"].startswith("a model from labels alone on 30 of these messages")
    assert labels[1]["how"].startswith("a model from labels alone on all 20 of these messages")
    for part in labels:
        assert part["seeds"]["seeds"] == [0, 1]
        assert len(part["seeds"]["figures"]["residual_span_rate"]["values"]) == 2
    report = (tmp_path / "ev" / "evaluate.md").read_text("utf-8")
    assert "gives a team that labels 30 messages of its corpus" in report


def test_the_model_from_labels_alone_learns_the_labels_of_the_messages_drawn_only(tmp_path):
    from imblearn.pipeline import Pipeline

    from triage.model import make_model
    from triage.model.gold import labelled_gold
    from triage.model.training import analyse, labels_only_scores
    from triage.io.messages import ReadOptions

    gold, _ = labelled_gold(write_gold(tmp_path / "gold.csv"), ReadOptions())
    analysed = analyse(gold)
    scores = labels_only_scores(analysed, 30, seed=3)
    assert scores.shape == (48,) and np.array_equal(scores, labels_only_scores(analysed, 30, seed=3))
    drawn = np.sort(np.random.default_rng(3).choice(48, 30, replace=False))
    by_hand = Pipeline(make_model("bagging", analysed.feature_set, seed=3).steps[1:])
    by_hand.fit(analysed.X[drawn], np.asarray([gold[i].label for i in drawn]))
    assert np.array_equal(scores, by_hand.predict_proba(analysed.X)[:, list(by_hand.classes_).index("TA")])
    # Every message when it has fewer than asked.
    assert np.array_equal(labels_only_scores(analysed, 500, seed=3), labels_only_scores(analysed, 48, seed=3))


@pytest.mark.parametrize("args, message", [
    (["--seeds", "2", "--no-cross-validation"], "--seeds repeats the cross-validation"),
    (["--labelled", "20", "--no-cross-validation"], "--labelled trains beside the cross-validation"),
    (["--labelled", "3"], "--labelled 3: the messages drawn cannot train a model (training needs at least 10"),
    (["SECOND", "--expert-budget", "5"], "give a share (0.1), not a count of messages, with several gold files"),
    (["SECOND", "--ablation"], "--ablation measures one gold file"),
    (["FIRST"], "is given twice"),
    (["NODONOR"], "names no donor for some messages"),
])
def test_what_several_files_or_seeds_cannot_do_is_refused_in_one_line(cli, tmp_path, args, message):
    first, second = write_gold(tmp_path / "first.csv"), write_other_gold(tmp_path / "second.csv")
    no_donor = tmp_path / "nodonor.csv"
    no_donor.write_text('text,label,spans\nrdv avec Julie,TA,"[[9, 14, ""PRE""]]"\nok,NTA,[]\n', "utf-8")
    names = {"FIRST": first, "SECOND": second, "NODONOR": no_donor}
    result = cli("evaluate", first, *[names.get(a, a) for a in args], "--out-dir", tmp_path / "ev")
    assert result.exit_code != 0 and message in result.output
    assert len(result.output.strip().splitlines()) == 1, result.output
    assert not (tmp_path / "ev").exists()


def test_a_release_datasheet_refuses_the_figures_of_several_gold_files(tmp_path):
    from triage.publication.datasheet import read_evaluation
    from triage.errors import BadInput

    several = tmp_path / "evaluate.json"
    several.write_text(json.dumps({"gold": ["a.csv", "b.csv"], "model_fingerprint": "f" * 64, "files": []}), "utf-8")
    with pytest.raises(BadInput, match="evaluated several gold files: run `triage evaluate GOLD` on the one like"):
        read_evaluation(several, {"model": {"metadata_sha256": "f" * 64}})


def test_the_python_api_repeats_the_cross_validation_with_seeds(tmp_path):
    import pandas as pd

    import triage

    gold = pd.read_csv(write_gold(tmp_path / "gold.csv"), dtype=str, keep_default_na=False)
    report = triage.evaluate(gold, folds=3, seeds=2, labelled=30)
    seeds = report.data["cross_validated"]["seeds"]
    assert seeds["seeds"] == [0, 1] and len(seeds["figures"]["person_precision"]["values"]) == 2
    assert report.data["cross_validated"]["labels_only"]["seeds"]["seeds"] == [0, 1]
    assert "person_precision" in report.tables["budget_curve"].columns


def test_the_python_api_evaluates_several_gold_frames_together(tmp_path):
    import pandas as pd

    import triage

    first = pd.read_csv(write_gold(tmp_path / "first.csv"), dtype=str, keep_default_na=False)
    second = pd.read_csv(write_other_gold(tmp_path / "second.csv"), dtype=str, keep_default_na=False)
    report = triage.evaluate([first, second], folds=11)
    assert [part["messages"] for part in report.data["files"]] == [48, 20]
    assert "grouped by donor over the files together" in report.data["files"][1]["cross_validated"]["how"]
    curve = report.tables["budget_curve"]
    assert curve.columns[0] == "gold" and curve.gold.unique().tolist() == ["the gold 1 DataFrame", "the gold 2 DataFrame"]
    assert curve[(curve.gold == "the gold 2 DataFrame") & (curve.policy == "paper")].gold_spans.tolist() == [10]
