"""The `triage` command line: thin commands over the library (sqlite-utils' style).

Each command parses its options, calls one library function and prints what it returns.
Bad input raises triage.io.InputError, shown as one line on stderr with exit code 1
(usage errors exit 2, as click does); --debug shows the traceback instead.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated, Optional

import typer
from typer.core import TyperGroup

_state = {"debug": False}


class _Group(TyperGroup):
    """Turns bad input (triage.io.InputError) into one line on stderr and exit code 1."""

    def invoke(self, ctx):
        from triage.io import InputError

        try:
            return super().invoke(ctx)
        except InputError as error:
            if _state["debug"]:
                raise
            typer.echo(f"Error: {error}", err=True)
            ctx.exit(1)


app = typer.Typer(
    cls=_Group,
    help="Decide which SMS of a corpus must be anonymised, hide what is certain, and queue the rest for a human expert.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


@app.callback()
def main(
    debug: Annotated[bool, typer.Option("--debug", help="Show full tracebacks on errors.")] = False,
) -> None:
    _state["debug"] = debug


# ---------------------------------------------------------------- shared options
InputPath = Annotated[Path, typer.Argument(help="CSV, TSV or JSONL file of messages.", show_default=False)]
OutputOption = Annotated[
    Optional[Path], typer.Option("--output", "-o", help="Output file (.csv, .tsv or .jsonl). Default: under reports/.")
]
TextColumn = Annotated[str, typer.Option("--text-column", help="Column holding the messages.")]
IdColumn = Annotated[Optional[str], typer.Option("--id-column", help="Column holding message ids (default: 'id' if present, else row numbers).")]
LabelColumn = Annotated[str, typer.Option("--label-column", help="Column holding gold labels TA/NTA.")]
Encoding = Annotated[Optional[str], typer.Option("--encoding", help="Input encoding (default: detect UTF-8, else cp1252).")]
Delimiter = Annotated[Optional[str], typer.Option("--delimiter", help="Field delimiter (default: sniff , ; tab |).")]
OnBadLines = Annotated[str, typer.Option("--on-bad-lines", help="error, skip or warn on ragged rows.")]
Force = Annotated[bool, typer.Option("--force", help="Overwrite an existing output file.")]


def read_options(text_column, id_column, label_column, encoding, delimiter, on_bad_lines):
    from triage.io import DEFAULT_ID_COLUMN
    from triage.pipeline import ReadOptions

    return ReadOptions(
        text_column=text_column,
        id_column=DEFAULT_ID_COLUMN if id_column is None else id_column,
        label_column=label_column,
        encoding=encoding,
        delimiter=delimiter,
        on_bad_lines=on_bad_lines,
    )


@app.command()
def seek(
    input: InputPath,
    output: OutputOption = None,
    words: Annotated[bool, typer.Option("--words", help="One row per word with its label instead of one per message.")] = False,
    text_column: TextColumn = "text",
    id_column: IdColumn = None,
    label_column: LabelColumn = "label",
    encoding: Encoding = None,
    delimiter: Delimiter = None,
    on_bad_lines: OnBadLines = "error",
    force: Force = False,
) -> None:
    """Seek&Hide: label every word and message (TA / NTA / UNTAGGED) and hide what is certain."""
    from triage.pipeline import run_seek

    summary = run_seek(
        input, output, words=words, force=force,
        read=read_options(text_column, id_column, label_column, encoding, delimiter, on_bad_lines),
    )
    typer.echo(f"{summary.messages:,} messages -> {summary.output}")
    typer.echo(summary.tables.markdown())


@app.command()
def classify(
    input: InputPath,
    output: OutputOption = None,
    model: Annotated[Optional[Path], typer.Option("--model", help="Model file (default: the embedded model).")] = None,
    queue: Annotated[Optional[Path], typer.Option("--queue", help="Also write the expert's work queue (.csv, .jsonl or .html).")] = None,
    policy: Annotated[Optional[str], typer.Option("--policy", help="Combination policy (default: the best one; 'paper' = Table 2).")] = None,
    jobs: Annotated[int, typer.Option("--jobs", "-j", min=1, help="Processes to use.")] = 1,
    text_column: TextColumn = "text",
    id_column: IdColumn = None,
    encoding: Encoding = None,
    delimiter: Delimiter = None,
    on_bad_lines: OnBadLines = "error",
    force: Force = False,
) -> None:
    """Classify every message TA / NTA / EXPERT with Seek&Hide, the model and the combiner."""
    from triage.pipeline import run_classify

    summary = run_classify(
        input, output, model_path=model, queue_path=queue, policy=policy, jobs=jobs, force=force,
        read=read_options(text_column, id_column, "label", encoding, delimiter, on_bad_lines),
        progress=sys.stderr.isatty(),
    )
    for line in summary.lines():
        typer.echo(line)


@app.command()
def train(
    input: Annotated[Path, typer.Argument(help="Labelled messages (text + label TA/NTA).", show_default=False)],
    output: Annotated[Path, typer.Option("--output", "-o", help="Model file to write.")],
    kind: Annotated[str, typer.Option("--kind", help="bagging (the paper's bagged J48) or tree.")] = "bagging",
    feature_set: Annotated[str, typer.Option("--features", help="Feature set: paper or rich.")] = "paper",
    normalise: Annotated[bool, typer.Option("--normalise", help="Divide counts by the number of words.")] = False,
    seed: Annotated[int, typer.Option("--seed", help="Random seed (same data + seed = same model).")] = 0,
    text_column: TextColumn = "text",
    label_column: LabelColumn = "label",
    encoding: Encoding = None,
    delimiter: Delimiter = None,
    on_bad_lines: OnBadLines = "error",
    force: Force = False,
) -> None:
    """Train the message model: features -> undersampling 1:1 -> bagged decision trees."""
    from triage.pipeline import run_train

    summary = run_train(
        input, output, kind=kind, feature_set=feature_set, normalise=normalise, seed=seed, force=force,
        read=read_options(text_column, None, label_column, encoding, delimiter, on_bad_lines),
    )
    meta = summary.metadata
    typer.echo(
        f"{meta['kind']} model on {meta['training_size']:,} messages "
        f"({meta['class_counts']['TA']:,} TA, {meta['class_counts']['NTA']:,} NTA), "
        f"features {meta['feature_set']} -> {summary.output}"
    )


@app.command()
def lexicons(
    directory: Annotated[
        Optional[Path], typer.Option("--directory", help="Lexicon folder (default: the shipped dictionaries/).")
    ] = None,
) -> None:
    """List the lexicons with their size, source and licence."""
    from rich.console import Console
    from rich.table import Table

    from triage import lexicons as lexicon_module

    loaded = lexicon_module.load(directory)
    table = Table(title=f"Lexicons (fingerprint {loaded.fingerprint})")
    for column in ("name", "role", "entries", "source", "licence"):
        table.add_column(column, justify="right" if column == "entries" else "left")
    for info in loaded.describe():
        table.add_row(info.name, info.role, f"{info.entries:,}", info.source, info.licence)
    Console(width=160).print(table)
    typer.echo(f"ambiguous spellings (both a name and an ordinary word): {len(loaded.ambiguous):,}")


def run() -> None:
    """Console-script entry point."""
    app()
