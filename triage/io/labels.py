"""Labels of a gold table: TA / NTA and the spellings of them that are accepted."""

from __future__ import annotations

from typing import Iterable

from triage.errors import BadInput
from triage.io.formats import _show

_LABELS = {"ta": "TA", "nta": "NTA", "1": "TA", "0": "NTA", "1.0": "TA", "0.0": "NTA", "true": "TA", "false": "NTA"}


ACCEPTED_LABELS = "TA, NTA, 1, 0, true, false, any case"


def parse_labels(values: Iterable[tuple[int, str]]) -> list[str]:
    """Map (line, raw label) pairs to "TA"/"NTA".

    Accepted, in any case and with surrounding whitespace: TA/NTA; 1/0 and true/false,
    where 1/true means TA (the positive class, "to anonymise"); 1.0/0.0 too, because
    pandas writes integer columns with a gap that way. yes/no are refused: whether "yes"
    answers "to anonymise?" or "anonymised already?" depends on who made the file.
    Every value is checked; the error lists the first 3 bad lines and the total.
    """
    labels: list[str] = []
    bad: list[tuple[int, str]] = []
    for line, raw in values:
        label = _LABELS.get((raw if isinstance(raw, str) else str(raw)).strip().lower())
        if label is None:
            bad.append((line, raw))
            label = ""
        labels.append(label)
    if bad:
        line, raw = bad[0]
        message = f"line {line}: label {_show(str(raw))!r} is not TA or NTA (accepted: {ACCEPTED_LABELS})"
        if len(bad) > 1:
            others = ", ".join(f"{n} ({_show(str(r))!r})" for n, r in bad[1:3])
            message += f"; also line{'s' if len(bad) > 2 else ''} {others}"
            message += f"; {len(bad)} bad labels in total"
        raise BadInput(message)
    return labels
