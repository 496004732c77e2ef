"""Annotated files: the TA/NTA label of each message and, when a `spans` column exists, the
gold spans [start, end, TYPE] of what must be hidden (as 88milSMS annotates). Training, the
reports and the evaluation read their messages here. Training and the evaluation analyse them
folded, as classify analyses messages (folded_gold).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from triage.errors import BadInput
from triage.io.jsonl import JSONTooDeep, parse_json
from triage.io.labels import parse_labels
from triage.io.messages import MessageTable, ReadOptions, Records, source_name
from triage.schema import HIDE_TAGS, Span
from triage.text.normalise import OffsetMap, fold_batch, spans_to_folded


@dataclass
class GoldMessage:
    text: str
    label: str
    spans: list[Span]
    group: str = ""  # the donor: messages of one donor stay in one cross-validation fold


def parse_spans(raw: str, line: int, text: str | None = None, display: str | None = None) -> list[Span]:
    """Gold spans of one message; with its `text`, each must be tagged with one of the ten
    categories (triage.schema.HIDE_TAGS: a span of another tag would be dropped from every
    measure), lie inside the message, and overlap no other (a model trained on impossible spans
    learns nonsense, silently). `display` names the file in the errors."""
    if not raw or not raw.strip():
        return []
    where = f"{display}: line {line}" if display else f"line {line}"
    try:
        spans = [(int(s), int(e), str(t)) for s, e, t in parse_json(raw)]
    except JSONTooDeep as error:
        raise BadInput(f"{where}: spans must be a JSON list of [start, end, TYPE], not {error}") from None
    except (ValueError, TypeError) as error:
        raise BadInput(f"{where}: spans must be a JSON list of [start, end, TYPE] ({error})") from None
    if text is not None:
        end_before = 0
        for start, end, kind in sorted(spans):
            if kind not in HIDE_TAGS:
                raise BadInput(f"{where}: span [{start}, {end}, {kind}] has the tag {kind!r}, not one of the ten "
                               f"categories: {' '.join(HIDE_TAGS)}")
            if not 0 <= start < end <= len(text):
                raise BadInput(f"line {line}: span [{start}, {end}, {kind}] is outside the message "
                                 f"({len(text)} characters) or empty")
            if start < end_before:
                raise BadInput(f"line {line}: span [{start}, {end}, {kind}] overlaps another span")
            end_before = end
    return spans


def folded_gold(messages: list[GoldMessage]) -> tuple[list[GoldMessage], dict[int, OffsetMap]]:
    """The gold messages as classify analyses them: each text folded (triage.text.normalise.fold_batch)
    and its gold spans mapped onto the folded text (normalise.spans_to_folded: a span ending
    inside a disguise covers the whole folded character), with the maps back to the text as
    written of the messages that changed (usually none: then the messages are returned as
    they are)."""
    texts, maps = fold_batch([m.text for m in messages])
    return gold_on_folded(messages, texts, maps), maps


def gold_on_folded(messages: list[GoldMessage], texts: list[str], maps: dict[int, OffsetMap]) -> list[GoldMessage]:
    """The gold messages on their folded `texts` (fold_batch's, with its `maps`): folded_gold
    for texts already folded."""
    if not maps:
        return messages
    folded = list(messages)
    for i, offsets in maps.items():
        m = messages[i]
        folded[i] = GoldMessage(texts[i], m.label, spans_to_folded(m.spans, offsets), m.group)
    return folded


def gold_labels(table: MessageTable, column: str) -> list[str]:
    """The TA/NTA labels of a table's `column`, every value checked."""
    return parse_labels((m.line, m.fields.get(column, "")) for m in table)


def labelled_gold(input_path: Path | Records, read: ReadOptions, with_spans: bool = True) -> tuple[list[GoldMessage], bool]:
    """(gold messages, whether spans were read): text, label, spans when the spans column
    (`read.spans_column`, by default `spans`) exists and `with_spans`, donor as the
    cross-validation group."""
    table = read.open(input_path, require_label=True)
    has_spans = with_spans and read.spans_column in table.columns
    table_name = source_name(input_path)
    messages, raw = [], []
    for message in table:
        raw.append((message.line, message.fields.get(read.label_column, "")))
        spans = (parse_spans(message.fields.get(read.spans_column, ""), message.line, message.text, table_name)
                 if has_spans else [])
        messages.append(GoldMessage(message.text, "", spans, message.fields.get("donor", "")))
    for message, label in zip(messages, parse_labels(raw)):
        message.label = label
    return messages, has_spans


def labelled_texts(input_path: Path | Records, read: ReadOptions | None = None) -> tuple[list[str], list[str]]:
    """(texts, TA/NTA labels) of a labelled file; spans, if any, are not read."""
    gold, _ = labelled_gold(input_path, read or ReadOptions(), with_spans=False)
    return [m.text for m in gold], [m.label for m in gold]
