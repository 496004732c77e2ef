import csv
import json

import pytest

from triage.combiner import EXPERT, BudgetPolicy, Decision, Evidence, ExactBudget, PaperPolicy
from triage.evaluation import field_metrics, message_field_counts, policies, release_metrics
from triage.gold import GoldMessage
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

    from triage.evaluation import evidence_from_model
    from triage.gold import labelled_gold
    from triage.io.messages import ReadOptions
    from triage.model import default_model_path, load_predictor
    from triage.training import analyse

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

    import triage.progress
    from triage.jobs import run_evaluate
    from triage.seekhide import steps as seekhide_steps

    bars = []

    @contextmanager
    def recording(description, total):
        bar = {"description": description, "total": total, "done": []}
        bars.append(bar)
        yield lambda doing=None: bar["done"].append(doing)

    monkeypatch.setattr(triage.progress, "steps", recording)
    gold = write_gold(tmp_path / "gold.csv")
    run_evaluate(gold, None, folds=3)
    assert bars == []  # no bar unless asked
    run_evaluate(gold, None, folds=3, progress=True, ablation=True)
    (bar,) = bars
    assert bar["description"] == f"evaluating {gold}"
    assert bar["total"] == len(bar["done"]) == 2 + 3 + 1 + len(seekhide_steps.switchable())
    assert bar["done"][:6] == ["a model trained on the gold, cross-validated", None, None, None,
                               "the model classify uses", "each step switched off in turn"]


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
    # The embedded model's recorded evaluation (data/default_evaluation.json, stated by the datasheet)
    # is this cross-validation: when the pipeline changes what it gives, the record must be measured again.
    from triage.model import Model, recorded_evaluation

    recorded = recorded_evaluation(Model.default().metadata)
    measured = data["cross_validated"]["chosen"]
    for key in ("residual_span_rate", "message_leak_rate", "over_masking_rate"):
        assert recorded[key] == round(measured[key], 4), key


def test_the_ablation_switches_each_seekhide_step_off_and_shows_what_it_brings(cli, tmp_path):
    from pathlib import Path

    from triage.model import default_model_path
    from triage.seekhide import STEPS

    demo = Path(__file__).resolve().parent.parent / "data" / "sample_sms.csv"
    out = tmp_path / "ev"
    result = cli("evaluate", demo, "--model", default_model_path(), "--ablation", "--out-dir", out)
    assert result.exit_code == 0, result.output
    rows = json.loads((out / "evaluate.json").read_text())["ablation"]
    assert [row["off"] for row in rows] == [None, *STEPS]
    by_step = {row["off"]: row for row in rows}
    # Without the repetition heuristic, 'merciiiii' and the like are no longer known words:
    # Seek&Hide leaves more messages untagged.
    assert by_step["repetition"]["untagged_share"] > by_step[None]["untagged_share"]
    assert "What each step brings (ablation" in result.output
