"""The jobs of the command line, from an input table to an output table.

CLI -> these functions -> Seek&Hide, features, model, combiner -> triage.io writers.
Each job reads its input through triage.io.open_messages (validated before anything is
written) and writes through triage.io.atomic_output (all or nothing, never clobbering).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from triage import io
from triage.seekhide import SeekAndHide, SeekTables, hidden_json, tables

REPORTS_DIR = Path("reports")


@dataclass
class ReadOptions:
    """How to read an input table (the CLI's shared input options)."""

    text_column: str = "text"
    id_column: str | None = io.DEFAULT_ID_COLUMN
    label_column: str = "label"
    encoding: str | None = None
    delimiter: str | None = None
    on_bad_lines: str = "error"

    def open(self, path: os.PathLike | str, *, require_label: bool = False) -> io.MessageTable:
        return io.open_messages(
            path,
            text_column=self.text_column,
            id_column=self.id_column,
            required_columns=(self.label_column,) if require_label else (),
            encoding=self.encoding,
            delimiter=self.delimiter,
            on_bad_lines=self.on_bad_lines,
        )


def default_output(input_path: os.PathLike | str, suffix: str) -> Path:
    """reports/<input stem>.<suffix>: where a job writes when no -o is given."""
    return REPORTS_DIR / f"{Path(input_path).stem}.{suffix}"


def gold_labels(table: io.MessageTable, column: str) -> list[str]:
    return io.parse_labels((m.line, m.fields.get(column, "")) for m in table)


# ---------------------------------------------------------------------- seek

SEEK_COLUMNS = ["id", "text", "seekhide", "anonymised", "hidden", "highlighted"]
WORD_COLUMNS = ["id", "start", "end", "word", "label", "rule", "match"]


@dataclass
class SeekSummary:
    output: Path
    messages: int
    tables: SeekTables
    skipped_lines: list[int] = field(default_factory=list)


def seek_rows(table: io.MessageTable, seeker: SeekAndHide, labels: list[str], words: bool) -> Iterator[dict]:
    import json

    for message in table:
        result = seeker.seek(message.text)
        labels.append(result.label)
        if words:
            for word in result.words:
                yield {
                    "id": message.id, "start": word.start, "end": word.end, "word": word.text,
                    "label": word.label, "rule": word.rule, "match": word.match,
                }
        else:
            yield {
                "id": message.id,
                "text": message.text,
                "seekhide": result.label,
                "anonymised": result.anonymised,
                "hidden": hidden_json(result.hidden),
                "highlighted": json.dumps(result.highlighted, ensure_ascii=False),
            }


def run_seek(
    input_path: Path,
    output: Path | None,
    *,
    words: bool = False,
    read: ReadOptions | None = None,
    force: bool = False,
    seeker: SeekAndHide | None = None,
) -> SeekSummary:
    """Seek&Hide on every message: labels, anonymised text, hidden spans (or one row per
    word with `words`). With a gold label column, also the paper's Tables 3 and 4."""
    from triage import lexicons

    read = read or ReadOptions()
    table = read.open(input_path)
    has_gold = read.label_column in table.columns
    gold = gold_labels(table, read.label_column) if has_gold else None
    output = Path(output) if output else default_output(input_path, "seek.csv")
    seeker = seeker or SeekAndHide(lexicons.default())
    labels: list[str] = []
    columns = WORD_COLUMNS if words else SEEK_COLUMNS
    with io.atomic_output(output, force=force, protect=[input_path]) as handle:
        writer = io.TableWriter(handle, columns, format=io.format_for(output))
        writer.write_many(seek_rows(table, seeker, labels, words))
    return SeekSummary(output, len(labels), tables(labels, gold), list(getattr(table, "skipped", [])))
