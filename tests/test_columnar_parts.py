"""The polars versions of two parts of classify (benchmarks/columnar_parts.py) give the tool's answers:
the speed they are compared at is only worth something if they do the same work."""

import pytest
from conftest import benchmark_module

pytest.importorskip("polars")


@pytest.fixture(scope="module")
def parts():
    return benchmark_module("columnar_parts")


BATCHES = [
    ["Salut Julie, on se voit à 18h ?", "  bisous  Zorane ", "on voit Julie demain, merci, Julie", "",
     "jtaime trop Mariethérèse", "C'EST QUI CE Kevin-Jean ?"],
    ["tu as vu Julie hier", "merci; Zorane!", "ok", "Nicoooolas est là  ", "on voit Julie's bike"],
]


def test_the_polars_cut_finds_the_stretch_ids_classify_finds(parts):
    expected = parts.python_cut(BATCHES)
    assert sum(map(len, expected)) > 30 and not parts.same(expected[:1], [expected[0][::-1]])
    assert parts.same(expected, parts.polars_cut(BATCHES))


def test_the_polars_statistics_count_what_the_statistics_pass_counts(parts):
    (runs, run_counts), (capitals, capital_counts) = parts.python_statistics(BATCHES)
    assert len(runs) and len(capitals)  # words in lower case, and Julie written mid-sentence
    assert parts.same(((runs, run_counts), (capitals, capital_counts)), parts.polars_statistics(BATCHES))


def test_the_duckdb_statistics_count_what_the_statistics_pass_counts(parts):
    pytest.importorskip("duckdb")
    pytest.importorskip("pyarrow")
    expected = parts.python_statistics(BATCHES)
    assert parts.same(expected, parts.duckdb_statistics(BATCHES))
