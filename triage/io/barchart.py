"""Bar charts as PNG images, drawn with Pillow: the summary chart `triage classify` writes beside
its output (messages per decision, and the messages a human must read).

matplotlib takes about 0.3 s to load and 0.1 s to draw its first figure, as long as classifying a
few thousand messages; Pillow loads in about 0.02 s and draws such a chart in a few hundredths of
a second. matplotlib stays for the reports of `triage evaluate`, whose figures need its axes.

A chart is a row of panels (`Bars`), each a title, a plot of bars from zero with a value axis of
round ticks (1, 2, 2.5 or 5 times a power of ten, five to eight of them, the axis reaching a
twentieth past the largest value), and the name of each bar beside it.
"""

from __future__ import annotations

import io
import math
from collections.abc import Sequence
from dataclasses import dataclass

from PIL import Image, ImageDraw, ImageFont

# Sizes in pixels, for a chart of about 880 x 350.
TITLE_SIZE, TEXT_SIZE = 16, 13
TICK, GAP, MARGIN = 4, 4, 8
BAR_SHARE = 0.8  # of the room of a bar
INK, BACKGROUND = "#000000", "#ffffff"


@dataclass(frozen=True)
class Bars:
    """One panel: bars from zero, vertical (their names below) or horizontal (their names on the
    left, the first at the top), in the colours `colours` (one per bar, `#rrggbb`)."""

    title: str
    names: Sequence[str]  # a name may hold line breaks
    values: Sequence[float]
    colours: Sequence[str]
    horizontal: bool = False
    axis: str = ""  # the label of the value axis, written along it (vertical bars)

    def __post_init__(self) -> None:
        if not len(self.names) == len(self.values) == len(self.colours):
            raise ValueError("a panel needs as many names and colours as values")
        if any(not math.isfinite(value) or value < 0 for value in self.values):
            raise ValueError("bar values must be finite and not negative")


def ticks(largest: float) -> tuple[list[float], float]:
    """(the ticks of a value axis from zero for values up to `largest`, the axis' end): round
    steps, five to eight of them; a count's ticks are whole numbers."""
    end = max(largest, 0) * 1.05 or 1.0
    rough = end / 7
    power = 10 ** math.floor(math.log10(rough))
    step = next(power * m for m in (1, 2, 2.5, 5, 10) if power * m >= rough)
    if float(largest).is_integer() and step < 1:  # counts: whole numbers
        step = 1.0
    count = int(end // step + 1e-9)
    return [step * k for k in range(count + 1)], end


def _written(value: float) -> str:
    """A tick's label: a whole number with thousands separators, else as short as it reads."""
    return f"{int(value):,}" if float(value).is_integer() else f"{value:g}"


def _font(size: int) -> ImageFont.ImageFont | ImageFont.FreeTypeFont:
    return ImageFont.load_default(size=size)


def _size(draw: ImageDraw.ImageDraw, text: str, font) -> tuple[int, int]:
    left, top, right, bottom = draw.multiline_textbbox((0, 0), text, font=font, align="right")
    return math.ceil(right - left), math.ceil(bottom - top)


def png(panels: Sequence[Bars], width: int = 880, height: int = 352) -> bytes:
    """The panels side by side, as PNG bytes."""
    image = Image.new("RGB", (width, height), BACKGROUND)
    draw = ImageDraw.Draw(image)
    share = width // max(len(panels), 1)
    for at, panel in enumerate(panels):
        _panel(image, draw, panel, (at * share, 0, (at + 1) * share, height))
    buffer = io.BytesIO()
    image.save(buffer, format="PNG", optimize=False)
    return buffer.getvalue()


def _panel(image: Image.Image, draw: ImageDraw.ImageDraw, panel: Bars, box: tuple[int, int, int, int]) -> None:
    left, top, right, bottom = box
    text, title = _font(TEXT_SIZE), _font(TITLE_SIZE)
    marks, end = ticks(max(panel.values, default=0))
    labels = [_written(mark) for mark in marks]
    title_height = _size(draw, panel.title or "0", title)[1]
    line = _size(draw, "0", text)[1]
    plot_top = top + MARGIN + title_height + 2 * GAP
    if panel.horizontal:
        name_width = max((_size(draw, name, text)[0] for name in panel.names), default=0)
        plot = (left + MARGIN + name_width + TICK + GAP, plot_top, right - MARGIN - _size(draw, labels[-1], text)[0] // 2,
                bottom - MARGIN - line - TICK - GAP)
    else:
        axis_width = _size(draw, panel.axis, text)[1] + GAP if panel.axis else 0
        label_width = max(_size(draw, label, text)[0] for label in labels)
        name_height = max((_size(draw, name, text)[1] for name in panel.names), default=0)
        plot = (left + MARGIN + axis_width + label_width + TICK + GAP, plot_top, right - MARGIN,
                bottom - MARGIN - name_height - TICK - GAP)
    x0, y0, x1, y1 = plot
    draw.text(((x0 + x1) // 2, top + MARGIN), panel.title, font=title, fill=INK, anchor="ma")
    slots = max(len(panel.values), 1)
    room = ((y1 - y0) if panel.horizontal else (x1 - x0)) / slots
    for k, (value, colour) in enumerate(zip(panel.values, panel.colours)):
        middle = (y0 if panel.horizontal else x0) + room * (k + 0.5)
        half = room * BAR_SHARE / 2
        if panel.horizontal:
            reach = x0 + (x1 - x0) * value / end
            if value:
                draw.rectangle((x0, round(middle - half), round(reach), round(middle + half)), fill=colour)
            draw.multiline_text((x0 - TICK - GAP, round(middle)), panel.names[k], font=text, fill=INK, anchor="rm",
                                align="right")
            draw.line((x0 - TICK, round(middle), x0, round(middle)), fill=INK)
        else:
            reach = y1 - (y1 - y0) * value / end
            if value:
                draw.rectangle((round(middle - half), round(reach), round(middle + half), y1), fill=colour)
            draw.multiline_text((round(middle), y1 + TICK + GAP), panel.names[k], font=text, fill=INK, anchor="ma",
                                align="center")
            draw.line((round(middle), y1, round(middle), y1 + TICK), fill=INK)
    for mark, label in zip(marks, labels):
        if panel.horizontal:
            x = round(x0 + (x1 - x0) * mark / end)
            draw.line((x, y1, x, y1 + TICK), fill=INK)
            draw.text((x, y1 + TICK + GAP), label, font=text, fill=INK, anchor="ma")
        else:
            y = round(y1 - (y1 - y0) * mark / end)
            draw.line((x0 - TICK, y, x0, y), fill=INK)
            draw.text((x0 - TICK - GAP, y), label, font=text, fill=INK, anchor="rm")
    draw.rectangle((x0, y0, x1, y1), outline=INK)
    if panel.axis and not panel.horizontal:
        written = Image.new("RGB", _size(draw, panel.axis, text), BACKGROUND)
        ImageDraw.Draw(written).text((0, 0), panel.axis, font=text, fill=INK, anchor="lt")
        turned = written.rotate(90, expand=True)
        image.paste(turned, (left + MARGIN, round((y0 + y1 - turned.height) / 2)))
