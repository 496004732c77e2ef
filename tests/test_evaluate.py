import csv
import json

import pytest

from triage.combiner import EXPERT, BudgetPolicy, Decision, Evidence, PaperPolicy
from triage.evaluation import field_metrics, message_field_counts, release_metrics, threshold_for_budget
from triage.gold import GoldMessage
from triage.seekhide import SeekAndHide


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


def test_threshold_for_budget_never_exceeds_the_budget():
    import numpy as np

    risks = np.array([0.9, 0.8, 0.8, 0.8, 0.1, 0.0, 0.0, 0.0, 0.0, 0.0])
    assert (risks >= threshold_for_budget(risks, 0.2)).sum() <= 2
    assert (risks >= threshold_for_budget(risks, 0.5)).sum() == 5
    assert (risks >= threshold_for_budget(risks, 0.0)).sum() == 0


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
    assert "What each Seek&Hide step brings (ablation)" in result.output
