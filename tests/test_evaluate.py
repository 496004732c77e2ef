import csv
import json

import pytest

from triage.combiner import EXPERT, BudgetPolicy, Decision, Evidence, PaperPolicy
from triage.evaluation import ExactBudget, field_metrics, message_field_counts, policies, release_metrics
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


def test_triage_evaluate_on_a_written_gold_file(cli, tmp_path):
    rows = []
    names = ["Julie", "Kevin", "Sophie", "Nicolas", "Chloé", "Karim", "Léa", "Hugo", "Inès", "Yanis", "Manon", "Lucas"]
    for i, name in enumerate(names * 2):
        text = f"rdv avec {name} à 18h"
        rows.append([text, "TA", json.dumps([[9, 9 + len(name), "PRE"]]), str(i % 6)])
    for i, text in enumerate(["ok", "jarrive", "bonne nuit", "tkt", "a plus", "merci", "trop bien", "on mange ?",
                              "je suis la", "bisous", "il pleut", "c cool"] * 2):
        rows.append([text, "NTA", "[]", str(i % 6)])
    gold = tmp_path / "gold.csv"
    with gold.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["text", "label", "spans", "donor"])
        writer.writerows(rows)
    out = tmp_path / "eval"
    result = cli("evaluate", gold, "--out-dir", out, "--folds", "3")
    assert result.exit_code == 0, result.output
    data = json.loads((out / "evaluate.json").read_text("utf-8"))
    assert data["how"] == "3-fold cross-validation grouped by donor"
    assert 0.0 <= data["chosen"]["residual_span_rate"] <= 1.0
    assert data["paper_policy"]["gold_spans"] == 24
    assert (out / "evaluate.png").read_bytes().startswith(b"\x89PNG")
    assert "residual span rate" in (out / "evaluate.md").read_text("utf-8")


def test_evaluate_needs_gold_spans(cli, tmp_path):
    gold = tmp_path / "gold.csv"
    gold.write_text("text,label\nok,NTA\n", "utf-8")
    result = cli("evaluate", gold)
    assert result.exit_code == 1 and "no 'spans' column" in result.output


def test_on_the_development_corpus_the_budget_policy_beats_the_paper(dev_corpus, tmp_path, cli):
    result = cli("evaluate", dev_corpus, "--out-dir", tmp_path)
    assert result.exit_code == 0, result.output
    data = json.loads((tmp_path / "evaluate.json").read_text("utf-8"))
    assert data["chosen"]["residual_span_rate"] < data["paper_policy"]["residual_span_rate"] / 3
    assert data["chosen"]["expert_share"] <= 0.10 + 1e-9
    assert data["chosen"]["over_masking_rate"] <= 0.02


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
