"""benchmarks/training_ways.py reads several gold files as one corpus of distinct donors and draws
the sample a team would label: what its figures per file and from labels alone rest on."""

import csv

import pytest
from conftest import benchmark_module


@pytest.fixture(scope="module")
def ways():
    return benchmark_module("training_ways")


def _gold_file(path, donors):
    with path.open("w", encoding="utf-8", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(["id", "donor", "text", "label", "spans"])
        for number, donor in enumerate(donors, 1):
            writer.writerow([number, donor, "rdv avec Zorane demain", "TA", "[[9, 15, \"PRE\"]]"])
    return path


def test_donors_of_two_files_never_merge_and_each_message_keeps_its_file(ways, tmp_path):
    first = _gold_file(tmp_path / "first.csv", ["a", "a", "b"])
    second = _gold_file(tmp_path / "second.csv", ["a", "c"])
    gold, files = ways.read_gold([first, second])
    assert files == ["first.csv"] * 3 + ["second.csv"] * 2
    assert [m.group for m in gold] == ["first.csv:a", "first.csv:a", "first.csv:b", "second.csv:a", "second.csv:c"]
    alone, _ = ways.read_gold([first])
    assert [m.group for m in alone] == ["a", "a", "b"]


def test_the_labelled_sample_is_drawn_by_the_seed_and_keeps_the_order(ways):
    training = list(range(100))
    sample = ways.labelled_sample(training, 10, seed=3)
    assert len(sample) == 10 and sample == sorted(sample) and sample != training[:10]
    assert sample == ways.labelled_sample(training, 10, seed=3) != ways.labelled_sample(training, 10, seed=4)
    assert ways.labelled_sample(training, None, 0) is training
    assert ways.labelled_sample(training, 500, 0) is training
