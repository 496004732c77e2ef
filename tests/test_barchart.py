"""The summary chart of classify, drawn with Pillow (triage/io/barchart.py): each bar as long as its
value on the axis, round ticks, the same bytes for the same counts."""

from __future__ import annotations

import io
import math

import numpy as np
import pytest
from PIL import Image

from triage.io import barchart

RED, GREEN, ORANGE, GREY = "#c0392b", "#27ae60", "#f39c12", "#7f8c8d"


def _pixels(png: bytes) -> np.ndarray:
    image = Image.open(io.BytesIO(png))
    assert image.format == "PNG"
    return np.asarray(image.convert("RGB"))


def _lengths(pixels: np.ndarray, colour: str, horizontal: bool, columns: slice = slice(None)) -> int:
    """How long the bar of `colour` is in pixels (0: no bar of that colour), within `columns`."""
    rgb = np.array([int(colour[k : k + 2], 16) for k in (1, 3, 5)], dtype=np.uint8)
    found = (pixels[:, columns] == rgb).all(axis=2)
    if not found.any():
        return 0
    rows, cols = np.flatnonzero(found.any(axis=1)), np.flatnonzero(found.any(axis=0))
    return int(cols[-1] - cols[0] + 1) if horizontal else int(rows[-1] - rows[0] + 1)


@pytest.mark.parametrize("horizontal", [False, True], ids=["vertical", "horizontal"])
def test_each_bar_is_as_long_as_its_value_and_a_zero_draws_none(horizontal):
    values = [40, 160, 0, 90]
    png = barchart.png([barchart.Bars("Some", ["a", "b", "c", "d"], values, [RED, GREEN, ORANGE, GREY],
                                      horizontal=horizontal, axis="messages")])
    pixels = _pixels(png)
    lengths = [_lengths(pixels, colour, horizontal) for colour in (RED, GREEN, ORANGE, GREY)]
    assert lengths[2] == 0
    for value, length in zip(values, lengths):  # the same pixels per unit for every bar, to a pixel
        assert abs(length - value * lengths[1] / values[1]) <= 1.5, (values, lengths)


@pytest.mark.parametrize("largest", [0, 1, 3, 7, 26, 166, 260, 999, 12_345, 895_579, 0.4])
def test_ticks_are_round_steps_from_zero_to_past_the_largest_value(largest):
    marks, end = barchart.ticks(largest)
    assert marks[0] == 0 and end >= largest and marks[-1] <= end + 1e-9
    step = marks[1] - marks[0]
    mantissa = step / 10 ** math.floor(math.log10(step))
    assert any(math.isclose(mantissa, m) for m in (1, 2, 2.5, 5))
    assert all(math.isclose(b - a, step) for a, b in zip(marks, marks[1:]))
    if float(largest).is_integer():
        assert all(float(mark).is_integer() for mark in marks)  # counts: whole numbers
    if largest >= 10:
        assert 5 <= len(marks) <= 9


def test_a_panel_refuses_what_it_cannot_draw():
    with pytest.raises(ValueError):
        barchart.Bars("x", ["a", "b"], [1], [RED])
    with pytest.raises(ValueError):
        barchart.Bars("x", ["a"], [-1], [RED])
    with pytest.raises(ValueError):
        barchart.Bars("x", ["a"], [float("nan")], [RED])


@pytest.mark.parametrize("jobs_", [1, 2], ids=["here", "by-a-worker"])
def test_the_classify_chart_shows_the_summarys_counts_in_the_same_bytes_each_time(tmp_path, jobs_):
    """The chart of classify, drawn in this process or (with --jobs) by a worker while this
    process writes the rows, shows the summary's counts, in the bytes drawn from them here."""
    from collections import Counter

    from triage import jobs

    source = tmp_path / "sms.csv"
    rows = ["id,text", "1,Coucou Patrice tu viens ce soir ?", "2,ok merci", "3,rdv 18h chez Zorane",
            "4,bisous", "5,on se voit demain avec Julie ?", "6,Oui"]
    source.write_text("\n".join(rows) + "\n", "utf-8")
    summary = jobs.run_classify(source, tmp_path / "out.csv", jobs=jobs_)
    png = summary.chart.read_bytes()
    pixels = _pixels(png)
    assert pixels.shape == (352, 880, 3)
    left = slice(0, 440)  # the panel of decisions (the expert's colour is also a bar of the other panel)
    heights = {decision: _lengths(pixels, colour, False, left)
               for decision, colour in zip(("TA", "NTA", "EXPERT"), (RED, GREEN, ORANGE))}
    counts = {decision: summary.decisions.get(decision, 0) for decision in heights}
    tallest = max(counts, key=counts.get)
    for decision in heights:
        assert abs(heights[decision] - counts[decision] * heights[tallest] / counts[tallest]) <= 1.5, (heights, counts)
    assert png == jobs._decision_chart(jobs._chart_counts(Counter(summary.decisions), Counter(summary.seekhide)))


def test_a_corpus_of_no_message_gets_its_chart_with_workers_asked_for_too(tmp_path):
    """With --jobs, the chart is drawn by a worker; a corpus of no message forks none, and its chart
    (all bars empty) is drawn here, the same as in one process."""
    from triage import jobs

    source = tmp_path / "sms.csv"
    source.write_text("id,text\n", "utf-8")
    charts = []
    for jobs_ in (1, 2):
        summary = jobs.run_classify(source, tmp_path / f"out-{jobs_}.csv", jobs=jobs_)
        assert summary.messages == 0 and summary.chart is not None
        charts.append(summary.chart.read_bytes())
    assert charts[0] == charts[1]
    assert _pixels(charts[0]).shape == (352, 880, 3)
