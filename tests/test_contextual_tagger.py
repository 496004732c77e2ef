"""The comparison of word taggers (benchmarks/contextual_tagger.py) over several gold files:
cross-validated together, reported file by file."""

import json

import pytest
from conftest import benchmark_module, write_table

NAMES = ["Julie", "Kevin", "Sophie", "Nicolas", "Chloé", "Karim", "Léa", "Hugo", "Inès", "Yanis", "Manon", "Lucas"]
# Ordinary messages, some with a word no list holds (a candidate that names no one).
ORDINARY = ["ok jarrive", "c du blurfo ce truc", "tkt ca va", "le zwingo est cassé", "merci beaucoup", "trop bien"]


@pytest.fixture(scope="module")
def tagger():
    return benchmark_module("contextual_tagger")


def gold_file(path, donors: list[str], names_per_donor: int):
    """Invented gold: each donor writes `names_per_donor` messages naming someone, and as many
    ordinary ones."""
    rows = []
    for d, donor in enumerate(donors):
        for k in range(names_per_donor):
            name = NAMES[(d * names_per_donor + k) % len(NAMES)]
            rows.append([str(len(rows) + 1), f"rdv avec {name} demain", "TA", json.dumps([[9, 9 + len(name), "PRE"]]), donor])
            rows.append([str(len(rows) + 1), ORDINARY[k % len(ORDINARY)], "NTA", "[]", donor])
    return write_table(path, rows, header=["id", "text", "label", "spans", "donor"])


def test_two_gold_files_are_cross_validated_together_and_reported_file_by_file(tagger, tmp_path):
    small = gold_file(tmp_path / "small.csv", ["a", "b", "c"], 2)
    large = gold_file(tmp_path / "large.csv", ["a", "b", "c", "d"], 4)
    out = tmp_path / "report.json"
    assert tagger.main(["--gold", str(small), str(large), "--seeds", "1", "--variants", "A", "--out", str(out)]) == 0
    report = json.loads(out.read_text())
    assert report["gold"] == [{"file": "small.csv", "messages": 12}, {"file": "large.csv", "messages": 32}]
    assert report["hide"] == ["PRE", "NOM", "SUR", "TEL", "MEL", "URL", "ADR", "COD", "LIE", "MAR"]
    files = report["per_seed"][0]["A"]["files"]
    # Each file counts its own gold spans, and every figure is a share.
    assert [f["0.10"]["spans"]["PRE"] for f in files] == [6, 16]
    for f in files:
        for key in ("0.00", "0.10", "hide_threshold=0.5"):
            for name in tagger.FIGURES:
                assert f[key][name] is None or 0 <= f[key][name] <= 1
    assert set(report["summary"]) == {"small.csv", "large.csv", "candidate words"}


def test_a_missing_gold_file_measures_nothing(tagger, tmp_path, capsys):
    assert tagger.main(["--gold", str(tmp_path / "absent.csv"), "--out", str(tmp_path / "r.json")]) == 0
    assert "absent" in capsys.readouterr().err and not (tmp_path / "r.json").exists()
