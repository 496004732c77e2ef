"""The `triage` command line: thin commands over the library (sqlite-utils' style).

Each command parses its options, calls one library function and prints what it returns.
Bad input raises triage.errors.InputError, shown as one line on stderr with exit code 1
(usage errors exit 2, as click does); --debug shows the traceback instead.
"""

from __future__ import annotations

import copy
import sys
import warnings
from pathlib import Path
from typing import Annotated, Optional

import typer
from typer.core import TyperGroup

_state: dict = {"debug": False}
# Set by run(): this process is the `triage` command, and ends when the command does.
_console: dict = {"on": False, "memory_only": False, "collector_off": False}


class _Group(TyperGroup):
    """Turns bad input (triage.errors.InputError) into one line on stderr and exit code 1."""

    def parse_args(self, ctx, args):
        _state["argv"] = list(args)  # the command line as given, for the records the tool keeps
        return super().parse_args(ctx, args)

    def invoke(self, ctx):
        from triage.errors import InputError

        try:
            with warnings.catch_warnings():
                if not _state["debug"]:  # warnings (e.g. --on-bad-lines warn) as one line, no source dump
                    warnings.showwarning = _one_line_warning
                return super().invoke(ctx)
        except InputError as error:
            if _state["debug"]:
                raise
            typer.echo(f"Error: {error}", err=True)
            ctx.exit(1)
        except KeyboardInterrupt:
            if _state["debug"]:
                raise
            typer.echo(_interrupted(ctx.invoked_subcommand), err=True)
            ctx.exit(130)


def _interrupted(command: str | None) -> str:
    """What Ctrl-C left, in one line: every file is written whole or not at all, and the review
    workspace keeps what was decided (SQLite transactions)."""
    again = "run the same command again (with --force if it says a file exists)"
    if command == "release":
        return ("Interrupted: nothing was released (the corpus and its datasheet are replaced together or not at "
                f"all) and the review workspace keeps every decision; {again}")
    if command == "classify":
        return ("Interrupted: no file was left half-written (a file finished before Ctrl-C is kept whole) and the "
                f"review workspace keeps every decision; {again}")
    return f"Interrupted: no file was left half-written; {again}"


def _one_line_warning(message, category, filename, lineno, file=None, line=None) -> None:
    typer.echo(f"Warning: {message}", err=True)


def _warn_skipped(lines: list[int]) -> None:
    """Say how many ragged rows --on-bad-lines skip/warn left out, and where."""
    if lines:
        s = "s" if len(lines) > 1 else ""
        shown = ", ".join(map(str, lines[:5])) + (", ..." if len(lines) > 5 else "")
        typer.echo(f"Warning: skipped {len(lines):,} bad row{s} (line{s} {shown})", err=True)


app = typer.Typer(
    cls=_Group,
    help="Decide which SMS of a corpus must be anonymised, hide what is certain, and queue the rest for a human expert.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    context_settings={"help_option_names": ["-h", "--help"]},
)


def _show_version(value: bool) -> None:
    if value:
        from triage.version import __version__

        typer.echo(f"sms-triage {__version__}")
        raise typer.Exit()


@app.callback()
def main(
    debug: Annotated[bool, typer.Option("--debug", help="Show full tracebacks on errors.")] = False,
    version: Annotated[bool, typer.Option("--version", help="Show the version and exit.", callback=_show_version,
                                          is_eager=True)] = False,
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
Encoding = Annotated[Optional[str], typer.Option("--encoding", help="Input encoding (default: decided from the file: UTF-8, UTF-16, else cp1252).")]
Delimiter = Annotated[Optional[str], typer.Option("--delimiter", help="Field delimiter (default: sniff , ; tab |).")]
OnBadLines = Annotated[str, typer.Option("--on-bad-lines", help="error, skip or warn on ragged rows.")]
Force = Annotated[bool, typer.Option("--force", help="Overwrite an existing output file.")]


def _command_line() -> str:
    """The command as typed, for the records the datasheet publishes: paths by their file names."""
    from triage.publication.datasheet import published_command

    return published_command(list(_state.get("argv", sys.argv[1:])))


def _busy(what: str):
    """A spinner on stderr for long steps, only when someone is watching a terminal."""
    import contextlib

    if not sys.stderr.isatty():
        return contextlib.nullcontext()
    from rich.console import Console

    return Console(stderr=True).status(what)


# Where a command writes when the user names no output: the tool's own folder, which a new
# run replaces (a file the user names is never replaced without --force).
REPORTS_DIR = Path("reports")


def default_output(input_path: Path, suffix: str) -> Path:
    """reports/<input stem>.<suffix>."""
    return REPORTS_DIR / f"{Path(input_path).stem}.{suffix}"


def read_options(text_column, id_column, label_column, encoding, delimiter, on_bad_lines):
    from triage.io.messages import DEFAULT_ID_COLUMN, ReadOptions

    return ReadOptions(
        text_column=text_column,
        id_column=DEFAULT_ID_COLUMN if id_column is None else id_column,
        label_column=label_column,
        encoding=encoding,
        delimiter=delimiter,
        on_bad_lines=on_bad_lines,
    )


HIDE_HELP = ("Categories to hide, comma-separated: PRE NOM SUR TEL MEL URL ADR COD LIE MAR; 'default' is "
             "PRE,NOM,SUR,TEL,MEL,URL,ADR,COD (people, contact details, identifiers), so 'default,LIE,MAR' also "
             "hides places and brands; 'all' is every category.")
Hide = Annotated[str, typer.Option("--hide", help=HIDE_HELP)]


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
    from triage.jobs import run_seek

    _no_collections()
    summary = run_seek(
        input, output or default_output(input, "words.csv" if words else "seek.csv"), words=words,
        force=force or output is None,
        read=read_options(text_column, id_column, label_column, encoding, delimiter, on_bad_lines),
    )
    _only_memory_left()
    typer.echo(f"{summary.messages:,} messages -> {summary.output}")
    typer.echo(summary.tables.markdown())
    _warn_skipped(summary.skipped_lines)


@app.command()
def classify(
    input: InputPath,
    output: OutputOption = None,
    model: Annotated[Optional[Path], typer.Option("--model", help="Model file (default: the embedded model).")] = None,
    queue: Annotated[Optional[Path], typer.Option("--queue", help="Also write the expert's work queue (.xlsx, .csv, .jsonl or .html).")] = None,
    policy: Annotated[Optional[str], typer.Option("--policy", help="Combination policy: budget or paper (Table 2). Default: the model's.")] = None,
    expert_budget: Annotated[float, typer.Option("--expert-budget", help="Messages a human reads (budget policy): a share (0 to 1; 1 = all) or a count (500); exactly that many, the riskiest.")] = 0.10,
    calibrated: Annotated[bool, typer.Option("--calibrated", help="Route each message by the risk threshold calibrated at training (same rule for every part of a corpus; the share sent is then close to the budget, not exact).")] = False,
    hide: Hide = "default",
    known_names: Annotated[Optional[Path], typer.Option("--known-names", help="A UTF-8 text file of names the team knows (participants, contacts, staff), one a line, optional tag PRE, NOM or SUR after a tab: hidden with their variants in every message.")] = None,
    jobs: Annotated[int, typer.Option("--jobs", "-j", min=1, help="Processes to use, at most one per core: each learns the words of its own messages, so more processes than cores add work, not speed (dask: workers of the local cluster).")] = 1,
    engine: Annotated[str, typer.Option("--engine", help="Where chunks are classified: local, or dask (needs the 'dask' extra).")] = "local",
    scheduler: Annotated[Optional[str], typer.Option("--scheduler", help="With --engine dask: address of a running scheduler, e.g. tcp://host:8786 (default: a local cluster).")] = None,
    text_column: TextColumn = "text",
    id_column: IdColumn = None,
    encoding: Encoding = None,
    delimiter: Delimiter = None,
    on_bad_lines: OnBadLines = "error",
    workspace: Annotated[Optional[Path], typer.Option("--workspace", help="Also bring this review workspace up to date (decided messages are not asked again; the names its reviewers marked where the machines had not hidden them, or learnt as names, are hidden with their variants in the other messages, which are ranked again; `triage review --learnt` lists them).")] = None,
    chart: Annotated[bool, typer.Option("--chart/--no-chart", help="Draw the summary bar chart (a PNG next to the output: messages per decision, and the messages a human must read).")] = True,
    force: Force = False,
) -> None:
    """Classify every message TA / NTA / EXPERT with Seek&Hide, the model and the combiner."""
    from triage.jobs import classify_with_workspace, run_classify

    read = read_options(text_column, id_column, "label", encoding, delimiter, on_bad_lines)
    options = dict(model_path=model, queue_path=queue, policy=policy, budget=expert_budget, calibrated=calibrated,
                   hide=hide, jobs=jobs, engine=engine, scheduler=scheduler, force=force or output is None,
                   queue_force=force, chart=chart, progress=sys.stderr.isatty())
    output = output or default_output(input, "classified.csv")
    if engine == "local":
        _no_collections()
    if workspace is None:
        summary, workspace_lines = run_classify(input, output, read=read, known_names=known_names, **options), []
        _only_memory_left()
    else:
        summary, workspace_lines = classify_with_workspace(
            input, output, workspace, read=read, known_names=known_names, command=_command_line(),
            id_column=id_column or "", say=lambda line: typer.echo(line, err=True), **options)
    for line in summary.lines() + workspace_lines:
        typer.echo(line)
    _warn_skipped(summary.skipped_lines)
    if summary.repeated_ids:
        ids = f"{summary.repeated_ids:,} id{'s appear' if summary.repeated_ids > 1 else ' appears'}"
        rows = f"{summary.repeated_rows:,} row{'s repeat' if summary.repeated_rows > 1 else ' repeats'}"
        typer.echo(
            f"Warning: {ids} on more than one row ({rows} an earlier id); every row was classified, "
            "but `triage queue export` needs unique ids (see --id-column)",
            err=True,
        )


@app.command()
def train(
    input: Annotated[Path, typer.Argument(help="Labelled messages (text + label TA/NTA).", show_default=False)],
    output: Annotated[Path, typer.Option("--output", "-o", help="Model file to write.")],
    kind: Annotated[str, typer.Option("--kind", help="bagging (the paper's bagged J48) or tree.")] = "bagging",
    feature_set: Annotated[str, typer.Option("--features", help="Feature set: rich or paper (Table 5).")] = "rich",
    normalise: Annotated[bool, typer.Option("--normalise", help="Divide counts by the number of words.")] = False,
    seed: Annotated[int, typer.Option("--seed", help="Random seed (same data + seed = same model).")] = 0,
    text_column: TextColumn = "text",
    label_column: LabelColumn = "label",
    encoding: Encoding = None,
    delimiter: Delimiter = None,
    on_bad_lines: OnBadLines = "error",
    force: Force = False,
    keep_scorer: Annotated[bool, typer.Option(
        "--keep-scorer", help="Keep the embedded model's word scorer even when the file has gold spans "
        "(advised with fewer than about 5,000 messages of spans).")] = False,
) -> None:
    """Train the message model: features -> undersampling 1:1 -> bagged decision trees.

    With gold spans, also the word scorer; from labels alone (or with --keep-scorer), the embedded
    model's word scorer is kept. Either way the expert budget is calibrated on the training messages."""
    from triage.jobs import run_train

    _check_feature_set(feature_set)
    with _busy("training (with gold spans, the word scorer is cross-validated too)"):
        summary = run_train(
            input, output, kind=kind, feature_set=feature_set, normalise=normalise, seed=seed, force=force,
            read=read_options(text_column, None, label_column, encoding, delimiter, on_bad_lines),
            keep_scorer=keep_scorer,
        )
    for line in summary.lines():
        typer.echo(line)


# ---------------------------------------------------------------- report (paper section 6.3)
report_app = typer.Typer(no_args_is_help=True)
app.add_typer(
    report_app, name="report",
    help="How well the model does, as in the paper: cross-validation, holdout, InfoGain ranking, the tree.",
)

FeatureSet = Annotated[str, typer.Option("--features", help="Feature set: paper or rich.")]
Normalise = Annotated[bool, typer.Option("--normalise", help="Divide counts by the number of words.")]
Seed = Annotated[int, typer.Option("--seed", help="Random seed (same data + seed = same report).")]


def _report_folder(report: str, out_dir: Optional[Path], force: bool, inputs,
                   sub: Optional[str] = None) -> tuple[Path, bool]:
    """The folder of a report and whether it may replace files there, checked before any
    work: reports/<report> is the tool's own (a new run replaces it); a folder the user
    names keeps its files unless --force, and never loses an input."""
    from triage.io import outputs
    from triage.model.reports.render import report_paths

    folder = out_dir if out_dir is not None else REPORTS_DIR / report
    folder = folder / sub if sub else folder
    force = force or out_dir is None
    outputs.check_outputs([(path, force) for path in report_paths(report, folder)], inputs=inputs)
    return folder, force


def _wrote(paths) -> None:
    typer.echo("wrote " + ", ".join(str(p) for p in paths))


def _check_feature_set(feature_set: str) -> None:
    from triage.model.training import check_feature_set

    check_feature_set(feature_set)


@report_app.command("cv")
def report_cv(
    input: Annotated[Path, typer.Argument(help="Labelled messages (text + label TA/NTA).", show_default=False)],
    folds: Annotated[int, typer.Option("--folds", min=2, help="Number of cross-validation folds.")] = 10,
    seed: Seed = 0,
    feature_set: FeatureSet = "paper",
    normalise: Normalise = False,
    out_dir: Annotated[Optional[Path], typer.Option("--out-dir", help="Folder for cv.md, cv.json, cv_confusion.png. Default: reports/cv.")] = None,
    compare: Annotated[bool, typer.Option("--compare", help="Cross-validate every feature set (paper, rich) and compare them; one sub-folder each.")] = False,
    text_column: TextColumn = "text",
    label_column: LabelColumn = "label",
    encoding: Encoding = None,
    delimiter: Delimiter = None,
    on_bad_lines: OnBadLines = "error",
    force: Force = False,
) -> None:
    """Stratified k-fold cross-validation of the 50% baseline, the decision tree and bagging (Table 6)."""
    from triage.features import FEATURE_SETS
    from triage.model.reports.cv import run_cv
    from triage.model.reports.render import (
        comparison_markdown,
        model_report_markdown,
        write_evaluation,
    )

    _check_feature_set(feature_set)
    read = read_options(text_column, None, label_column, encoding, delimiter, on_bad_lines)
    names = FEATURE_SETS if compare else [feature_set]
    folders = {name: _report_folder("cv", out_dir, force, [input], sub=name if compare else None) for name in names}
    evaluations = {}
    for name in names:
        evaluations[name] = run_cv(
            input, folds=folds, seed=seed, feature_set=name, normalise=normalise, read=read,
            progress=sys.stderr.isatty(),
        )
        typer.echo(model_report_markdown(evaluations[name]))
        folder, replace = folders[name]
        _wrote(write_evaluation(evaluations[name], folder, force=replace))
    if compare:
        typer.echo("Feature sets compared (same folds and seed):\n")
        typer.echo(comparison_markdown(evaluations))


@report_app.command("holdout")
def report_holdout(
    input: Annotated[Path, typer.Argument(help="Labelled messages, in time order.", show_default=False)],
    train_first: Annotated[int, typer.Option("--train-first", min=1, help="Train on this many first rows (file order).")] = 4000,
    test_next: Annotated[int, typer.Option("--test-next", min=1, help="Test on this many rows after them.")] = 2000,
    seed: Seed = 0,
    feature_set: FeatureSet = "paper",
    normalise: Normalise = False,
    out_dir: Annotated[Optional[Path], typer.Option("--out-dir", help="Folder for holdout.md, .json, .png. Default: reports/holdout.")] = None,
    text_column: TextColumn = "text",
    label_column: LabelColumn = "label",
    encoding: Encoding = None,
    delimiter: Delimiter = None,
    on_bad_lines: OnBadLines = "error",
    force: Force = False,
) -> None:
    """The paper's time-ordered test: train on the first N messages, test on the next M."""
    from triage.model.reports.cv import run_holdout
    from triage.model.reports.render import model_report_markdown, write_evaluation

    _check_feature_set(feature_set)
    folder, replace = _report_folder("holdout", out_dir, force, [input])
    evaluation = run_holdout(
        input, train_first=train_first, test_next=test_next, seed=seed, feature_set=feature_set,
        normalise=normalise, read=read_options(text_column, None, label_column, encoding, delimiter, on_bad_lines),
    )
    typer.echo(model_report_markdown(evaluation))
    _wrote(write_evaluation(evaluation, folder, force=replace))


@report_app.command("infogain")
def report_infogain(
    input: Annotated[Path, typer.Argument(help="Labelled messages (text + label TA/NTA).", show_default=False)],
    feature_set: FeatureSet = "paper",
    normalise: Normalise = False,
    balanced: Annotated[bool, typer.Option("--balanced", help="Undersample to 1:1 first, as the paper's training data was.")] = False,
    seed: Annotated[int, typer.Option("--seed", help="Random seed of the undersampling.")] = 0,
    out_dir: Annotated[Optional[Path], typer.Option("--out-dir", help="Folder for infogain.md, .json, .png. Default: reports/infogain.")] = None,
    text_column: TextColumn = "text",
    label_column: LabelColumn = "label",
    encoding: Encoding = None,
    delimiter: Delimiter = None,
    on_bad_lines: OnBadLines = "error",
    force: Force = False,
) -> None:
    """Rank the features by information gain, as Weka's InfoGainAttributeEval (Table 5)."""
    from triage.model.reports.render import (
        infogain_report,
        infogain_report_markdown,
        write_infogain,
    )

    _check_feature_set(feature_set)
    folder, replace = _report_folder("infogain", out_dir, force, [input])
    report = infogain_report(
        input, feature_set=feature_set, normalise=normalise, balanced=balanced, seed=seed,
        read=read_options(text_column, None, label_column, encoding, delimiter, on_bad_lines),
    )
    typer.echo(infogain_report_markdown(report))
    _wrote(write_infogain(report, folder, force=replace))


@report_app.command("tree")
def report_tree(
    model: Annotated[Path, typer.Argument(help="Model file written by `triage train`.", show_default=False)],
    tree_index: Annotated[int, typer.Option("--tree-index", min=0, help="Which of the bagged trees to show.")] = 0,
    out_dir: Annotated[Optional[Path], typer.Option("--out-dir", help="Folder for tree.txt and tree.png. Default: reports/tree.")] = None,
    force: Force = False,
) -> None:
    """Print a tree of the model the way Weka's J48 prints it (Figure 1), and draw it."""
    from triage.model.reports.render import model_tree, tree_heading, write_tree

    report = model_tree(model, tree_index)  # a bad model or index first: quick to say
    folder, replace = _report_folder("tree", out_dir, force, [model])
    typer.echo(f"{tree_heading(report)}\n")
    typer.echo(report.text)
    _wrote(write_tree(report, folder, force=replace))


@app.command()
def evaluate(
    gold: Annotated[list[Path], typer.Argument(help="Gold messages: text, label TA/NTA, spans [[start, end, TYPE], ...]. Several files are cross-validated together, grouped by donor, and reported file by file.", show_default=False)],
    model: Annotated[Optional[Path], typer.Option("--model", help="The model classify uses, if not the embedded one: its figures come first.")] = None,
    policy: Annotated[str, typer.Option("--policy", help="budget or paper (Table 2).")] = "budget",
    expert_budget: Annotated[float, typer.Option("--expert-budget", help="Messages a human reads: a share (0 to 1) or a count (500), the riskiest.")] = 0.10,
    hide: Hide = "default",
    folds: Annotated[int, typer.Option("--folds", min=2, help="Cross-validation folds (grouped by donor when there is a donor column).")] = 5,
    seed: Annotated[int, typer.Option("--seed")] = 0,
    seeds: Annotated[int, typer.Option("--seeds", min=1, help="Cross-validate with this many seeds (--seed, --seed + 1, ...; each after the first also deals the donors into folds at random) and report the mean and standard deviation of the main figures.")] = 1,
    feature_set: Annotated[str, typer.Option("--features", help="Message feature set of the model trained on the gold and cross-validated.")] = "rich",
    no_cross_validation: Annotated[bool, typer.Option("--no-cross-validation", help="Report the model classify uses only: skip the model trained on the gold and cross-validated (what a model of your own would give), the slow part.")] = False,
    known_names: Annotated[Optional[Path], typer.Option("--known-names", help="Names the team knows, as classify's --known-names: hidden with their variants before scoring.")] = None,
    labelled: Annotated[Optional[int], typer.Option("--labelled", min=1, metavar="N", help="Also a model from labels alone on N messages of each gold file, drawn at random (the file's own labels, no spans; its word scorer the cross-validated one), the file read as one corpus: what `triage train` without spans gives a team that labels N messages of its corpus.", show_default=False)] = None,
    simulate_review: Annotated[int, typer.Option("--simulate-review", min=0, metavar="ROUNDS", help="Also measure the review loop (at most 100 rounds): a perfect reviewer reads the budget in ROUNDS rounds, the riskiest first; after each, the names the machines left readable in the messages read are hidden in the other messages, which are ranked again (the model classify uses).")] = 0,
    ablation: Annotated[bool, typer.Option("--ablation", help="Also switch Seek&Hide's steps off one by one and report what each brings (cross-validates once per step).")] = False,
    out_dir: Annotated[Optional[Path], typer.Option("--out-dir", help="Folder for evaluate.md, .json, .png. Default: reports/evaluate.")] = None,
    text_column: TextColumn = "text",
    label_column: LabelColumn = "label",
    spans_column: Annotated[str, typer.Option("--spans-column", help="Column of the gold spans [[start, end, TYPE], ...].")] = "spans",
    encoding: Encoding = None,
    delimiter: Delimiter = None,
    force: Force = False,
) -> None:
    """Score the whole pipeline against gold spans: what stays readable, and at what reading cost,
    with the model classify uses, then with a model trained on the gold and cross-validated."""
    from dataclasses import replace as replaced

    from triage.jobs import run_evaluate

    _check_feature_set(feature_set)
    folder, replace = _report_folder("evaluate", out_dir, force, [*gold, model])
    read = replaced(read_options(text_column, None, label_column, encoding, delimiter, "error"), spans_column=spans_column)
    report = run_evaluate(
        gold, folder, model_path=model, policy=policy, budget=expert_budget, hide=hide, folds=folds, seed=seed, seeds=seeds,
        feature_set=feature_set, ablation=ablation, cross_validation=not no_cross_validation, known_names=known_names,
        force=replace, read=read, simulate_review=simulate_review, labelled=labelled,
        progress=sys.stderr.isatty(),
    )
    typer.echo(report.markdown)
    typer.echo("written: " + ", ".join(str(f) for f in report.files))


queue_app = typer.Typer(no_args_is_help=True, help="The expert's work queue: export it, fold the answers back.")
app.add_typer(queue_app, name="queue", help="The expert's work queue: export it, fold the answers back.")


@queue_app.command("export")
def queue_export(
    classified: Annotated[Path, typer.Argument(help="Output of `triage classify`.", show_default=False)],
    output: Annotated[Optional[Path], typer.Option("--output", "-o", help="Queue file: .csv (spreadsheet-safe), .jsonl or .html.")] = None,
    format: Annotated[Optional[str], typer.Option("--format", help="csv, tsv, jsonl or html (default: by extension).")] = None,
    force: Force = False,
) -> None:
    """Write the messages that need a human, most uncertain first, with what to look at and why."""
    from triage.queue.files import export_queue

    summary = export_queue(classified, output or default_output(classified, "queue.csv"), format=format,
                           force=force or output is None)
    typer.echo(f"{summary.queued:,} of {summary.total:,} messages need a human -> {summary.output}")


@queue_app.command("apply")
def queue_apply(
    decisions: Annotated[Path, typer.Argument(help="The queue with expert_decision / expert_hide filled in, or a review workspace.", show_default=False)],
    classified: Annotated[Path, typer.Argument(help="Output of `triage classify`.", show_default=False)],
    output: Annotated[Path, typer.Option("--output", "-o", help="Final file: every message with its final label and working text.")],
    force: Force = False,
) -> None:
    """Fold the expert's answers back: final label and text of every message (answers never teach words)."""
    from triage.review_workspace import apply_workspace, is_workspace

    if is_workspace(decisions):
        finals = apply_workspace(decisions, classified, output, force=force)
        total = sum(finals.values())
        typer.echo(f"{total:,} messages -> {output}: {total - finals.get('EXPERT', 0):,} decided, "
                   f"{finals.get('EXPERT', 0):,} still undecided")
        typer.echo("final: " + ", ".join(f"{k} {v:,}" for k, v in sorted(finals.items())))
        return
    from triage.queue.files import apply_decisions

    s = apply_decisions(decisions, classified, output, force=force)
    typer.echo(f"{s.total:,} messages -> {s.output}: {s.decided:,} decided by the expert, {s.undecided:,} still undecided")
    typer.echo("final: " + ", ".join(f"{k} {v:,}" for k, v in sorted(s.finals.items())))


@app.command()
def review(
    classified: Annotated[Path, typer.Argument(help="Output of `triage classify`.", show_default=False)],
    workspace: Annotated[Optional[Path], typer.Option("--workspace", help="Review workspace (SQLite). Default: CLASSIFIED.review.sqlite beside it.")] = None,
    port: Annotated[int, typer.Option("--port", min=0, max=65535, help="Port on --host (default: a free one; give one to --invite colleagues).")] = 0,
    no_browser: Annotated[bool, typer.Option("--no-browser", help="Do not open a browser; just print the address.")] = False,
    reviewer: Annotated[Optional[str], typer.Option("--reviewer", help="Your name in the audit log (default: your login name); the datasheet publishes reviewer 1, reviewer 2... unless `release --reviewer-names`.")] = None,
    audit: Annotated[int, typer.Option("--audit", min=0, help="Messages released by the machines to sample for the audit.")] = 200,
    seed: Annotated[int, typer.Option("--seed", help="Seed of the audit sample.")] = 0,
    lexicon_dir: Annotated[Optional[Path], typer.Option("--lexicon-dir", help="Your lexicon for future corpora (default: your data folder, or $TRIAGE_USER_LEXICON_DIR).")] = None,
    report: Annotated[bool, typer.Option("--report", help="Print progress and the audit estimate, then stop.")] = False,
    learnt: Annotated[bool, typer.Option("--learnt", help="List the learnt words, then stop.")] = False,
    unlearn: Annotated[Optional[int], typer.Option("--unlearn", help="Undo learnt entry ID (see --learnt), then stop.")] = None,
    consistency: Annotated[bool, typer.Option("--consistency", help="List the consistency cases (a spelling hidden in some messages and readable in others, a surrogate equal to a readable form, a spelling with two tags), undecided and riskiest first, then stop (the --case-* filters narrow the list).")] = False,
    decide_consistency: Annotated[Optional[str], typer.Option("--decide-consistency", metavar="DECISION", help="Decide the consistency case of --spelling for the whole corpus as --reviewer: hide, readable (shown everywhere: needs --yes when hidden items become readable), homonyms, same or different; then stop.")] = None,
    spelling: Annotated[Optional[str], typer.Option("--spelling", help="With --decide-consistency: the case's spelling (as --consistency lists it).")] = None,
    consistency_all: Annotated[Optional[str], typer.Option("--consistency-all", metavar="DECISION", help="Decide every consistency case the --case-* filters find (by default the undecided ones) hide or readable at once, as --reviewer: prints what changes, and decides only with --yes; then stop.")] = None,
    case_search: Annotated[Optional[str], typer.Option("--case-search", help="Consistency cases whose spelling holds this text (any case or accents).")] = None,
    case_tag: Annotated[Optional[str], typer.Option("--case-tag", help="Consistency cases hidden under this tag somewhere (PRE, NOM...).")] = None,
    case_status: Annotated[Optional[str], typer.Option("--case-status", help="Consistency cases undecided or decided (default: all for --consistency, undecided for --consistency-all).")] = None,
    case_kind: Annotated[Optional[str], typer.Option("--case-kind", help="Consistency cases of one kind: mixed, surrogate or tags.")] = None,
    undo_consistency: Annotated[bool, typer.Option("--undo-consistency", help="Undo your (--reviewer's) last consistency decision, one case or every case of a --consistency-all, each back to the decision it had before; one that makes hidden items readable needs --yes; then stop.")] = False,
    yes: Annotated[bool, typer.Option("--yes", help="Confirm --consistency-all, or a --decide-consistency readable or an --undo-consistency that makes hidden items readable, after its preview.")] = False,
    import_queue: Annotated[Optional[Path], typer.Option("--import-queue", help="Store the decisions of a filled queue file (expert_decision / expert_hide, from `classify --queue` or `queue export`) as --reviewer's, then stop.")] = None,
    allow_release_of_hidden: Annotated[bool, typer.Option("--allow-release-of-hidden", help="With --import-queue: store NTA rows over messages whose contact details (TEL MEL ADR URL COD) the machines hid, which NTA makes readable (refused without it).")] = False,
    double: Annotated[Optional[float], typer.Option("--double", min=0.0, max=1.0, help="Share of the queue and of the audit decided blind by two reviewers (0.1: one in ten, seeded by --seed; default: as recorded, none at first).")] = None,
    lead: Annotated[bool, typer.Option("--lead", help="You are the lead reviewer: the address printed at start resolves the disagreements of the double review (colleagues' links never do).")] = False,
    host: Annotated[str, typer.Option("--host", metavar="ADDRESS", help="Listen on this IP address of the computer (default 127.0.0.1: this computer only); another one lets colleagues on the network open their links. 0.0.0.0: every IPv4 address of the computer (your address names 127.0.0.1, colleagues' links its network address).")] = "127.0.0.1",
    certificate: Annotated[Optional[Path], typer.Option("--certificate", help="Serve over TLS (https) with this PEM certificate; with --key.")] = None,
    key: Annotated[Optional[Path], typer.Option("--key", help="The private key (PEM, without a passphrase) of --certificate.")] = None,
    invite: Annotated[Optional[list[str]], typer.Option("--invite", metavar="NAME", help="Print a personal link for reviewer NAME to the server started with the same --host and --port (a new link replaces theirs), then stop. Decisions made through it are NAME's. Repeat it for several reviewers.")] = None,
    revoke: Annotated[Optional[list[str]], typer.Option("--revoke", metavar="NAME", help="Refuse reviewer NAME's link from now on (even while the server runs), then stop.")] = None,
) -> None:
    """Review the queue in the browser: decide, hide, learn words with a scope, audit the machines.

    A team shares one server: the lead starts it (`--lead`, `--host ADDRESS` for the network) and
    gives each colleague their own link (`--invite NAME`); a message shown to one is leased to them,
    never given to another."""
    from triage import review_workspace as review_module

    if invite or revoke:
        for line in review_module.invite_lines(classified, workspace, invite=invite or (), revoke=revoke or (),
                                               host=host, port=port, certificate=certificate, key=key):
            typer.echo(line)
        return
    if import_queue is not None:
        from triage.jobs import import_queue_lines

        for line in import_queue_lines(classified, workspace, import_queue, reviewer=reviewer, audit=audit, seed=seed,
                                       allow_release_of_hidden=allow_release_of_hidden):
            typer.echo(line)
        return
    review_module.check_consistency_options(consistency, decide_consistency, spelling, consistency_all, yes,
                                            (case_search, case_tag, case_status, case_kind), undo_consistency)
    if undo_consistency or decide_consistency is not None or consistency_all is not None:
        try:
            if undo_consistency:
                lines = review_module.undo_consistency_lines(classified, workspace, reviewer=reviewer, yes=yes)
            else:
                lines = review_module.consistency_decision_lines(
                    classified, workspace, decide=decide_consistency, spelling=spelling, bulk=consistency_all,
                    q=case_search, tag=case_tag, status=case_status, kind=case_kind, reviewer=reviewer, yes=yes)
        except review_module.NotConfirmed as refused:
            for line in refused.lines:
                typer.echo(line)
            raise
        for line in lines:
            typer.echo(line)
        return
    if consistency:
        for line in review_module.consistency_list_lines(classified, workspace, q=case_search, tag=case_tag,
                                                         status=case_status, kind=case_kind):
            typer.echo(line)
        if not (report or learnt or unlearn is not None):
            return
    if report or learnt or unlearn is not None:
        for line in review_module.review_lines(classified, workspace, reviewer=reviewer, lexicon_dir=lexicon_dir,
                                               report=report, learnt=learnt, unlearn=unlearn):
            typer.echo(line)
        return

    def announce(address: str) -> None:
        typer.echo(address)  # the first line of output, flushed: scripts read the address from it
        sys.stdout.flush()

    review_module.serve_review(classified, workspace, port=port, no_browser=no_browser, reviewer=reviewer, audit=audit,
                               seed=seed, lexicon_dir=lexicon_dir, announce=announce,
                               say=lambda line: typer.echo(line, err=True), double=double, lead=lead, host=host,
                               certificate=certificate, key=key)


@app.command()
def release(
    classified: Annotated[Path, typer.Argument(help="Output of `triage classify`, its queue reviewed.", show_default=False)],
    output: Annotated[Path, typer.Option("--output", "-o", help="The corpus to publish: .csv, .tsv, .jsonl or .xlsx.")],
    workspace: Annotated[Optional[Path], typer.Option("--workspace", help="Review workspace (default: CLASSIFIED.review.sqlite beside it).")] = None,
    style: Annotated[str, typer.Option("--style", help="tags (<PRE_7>), pseudonyms (<PRE_1>, one per entity) or surrogates (realistic replacements).")] = "tags",
    seed: Annotated[int, typer.Option("--seed", help="Seed of the surrogates (same seed, same surrogates).")] = 0,
    columns: Annotated[Optional[str], typer.Option("--columns", help="Other columns of the input to publish, comma-separated (default: none; id and text are always kept).")] = None,
    gold_columns: Annotated[bool, typer.Option("--gold-columns", help="Allow --columns to name gold columns (label, spans...), which are refused otherwise.")] = False,
    input: Annotated[Optional[Path], typer.Option("--input", help="The classified input, for its other columns (default: the one `classify --workspace` recorded).")] = None,
    withhold_undecided: Annotated[bool, typer.Option("--withhold-undecided", help="Leave out the queued messages nobody decided (said in the datasheet).")] = False,
    allow_disagreements: Annotated[bool, typer.Option("--allow-disagreements", help="Release the double review's unresolved disagreements, and its messages awaiting their second blind reviewer, as the more cautious decision (said in the datasheet).")] = False,
    excel: Annotated[bool, typer.Option("--excel", help="Write the CSV French Excel opens right (UTF-8 with BOM, ';').")] = False,
    hide: Annotated[Optional[str], typer.Option("--hide", help="Default: the --hide classify recorded in the workspace (else 'default'); another one is refused unless --hide-differs-ok. " + HIDE_HELP)] = None,
    hide_differs_ok: Annotated[bool, typer.Option("--hide-differs-ok", help="Accept a --hide other than classify's: the messages keep what classify hid, the other columns are searched for --hide, and the datasheet names the categories that differ.")] = False,
    donor_column: Annotated[Optional[str], typer.Option("--donor-column", help="The input's column of donors (senders), counted in the datasheet (default: a column named donor, sender, author...).")] = None,
    evaluation: Annotated[Optional[Path], typer.Option("--evaluation", help="The evaluate.json of `triage evaluate GOLD` (with --model MODEL if classify used one): the datasheet gives the expected residual and over-masking of the model classify used.")] = None,
    inconsistent_ok: Annotated[bool, typer.Option("--inconsistent-ok", help="Release even while consistency cases are undecided (see `triage review --consistency`); the datasheet counts them.")] = False,
    date_column: Annotated[Optional[str], typer.Option("--date-column", help="The input's column of dates, whose period the datasheet gives (default: a column named date, timestamp...).")] = None,
    reviewer_names: Annotated[bool, typer.Option("--reviewer-names", help="Name the reviewers in the datasheet as they reviewed (--reviewer) instead of reviewer 1, reviewer 2...")] = False,
    force: Force = False,
) -> None:
    """Write the publishable corpus in a release style, and its datasheet (Markdown and JSON)."""
    from triage.publication.corpus import run_release

    chosen = [c.strip() for c in columns.split(",") if c.strip()] if columns else None
    _no_collections()
    s = run_release(classified, output, workspace=workspace, style=style, seed=seed, columns=chosen,
                    withhold_undecided=withhold_undecided, excel=excel, input_path=input, force=force, hide=hide,
                    hide_differs_ok=hide_differs_ok, command=_command_line(), donor_column=donor_column,
                    date_column=date_column, inconsistent_ok=inconsistent_ok, evaluation=evaluation,
                    allow_disagreements=allow_disagreements, reviewer_names=reviewer_names,
                    gold_columns=gold_columns)
    routes = ", ".join(f"{k} {v:,}" for k, v in sorted(s.routes.items()))
    typer.echo(f"{s.messages:,} messages ({routes}) -> {s.output}, style {s.style}")
    if s.withheld:
        typer.echo(f"withheld: {s.withheld:,} undecided queued messages")
    if s.sheet and s.sheet.get("review", {}).get("unresolved_disagreements_released"):
        typer.echo(f"released: {s.sheet['review']['unresolved_disagreements_released']:,} unresolved disagreements "
                   "of the double review, as the more cautious decision (said in the datasheet)")
    if s.sheet and s.sheet.get("review", {}).get("awaiting_second_review_released"):
        typer.echo(f"released: {s.sheet['review']['awaiting_second_review_released']:,} messages awaiting their "
                   "second blind reviewer, as the more cautious decision (said in the datasheet)")
    typer.echo("datasheet: " + ", ".join(str(p) for p in s.datasheet))
    from triage.publication.datasheet import placeholders

    left = placeholders(s.sheet or {})
    if left:
        typer.echo(f"datasheet: {len(left)} statements marked [TO FILL: ...] for a person to write before publication")


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

    loaded = lexicon_module.inventory(directory)
    table = Table(title=f"Lexicons (fingerprint {loaded.fingerprint})")
    for column in ("name", "role", "entries", "source", "licence"):
        table.add_column(column, justify="right" if column == "entries" else "left")
    for info in loaded.describe():
        table.add_row(info.name, info.role, f"{info.entries:,}", info.source, info.licence)
    Console(width=160).print(table)
    typer.echo(f"ambiguous spellings (both a name and an ordinary word): {len(loaded.ambiguous):,}")


def run() -> None:
    """Console-script entry point."""
    _blas_on_one_thread()
    _stop_cleanly_on_sigterm()
    _console["on"] = True
    try:
        application(sys.argv[1:])()
    except SystemExit as stop:
        if _console["memory_only"] and stop.code in (None, 0):
            _exit_at_once()
        raise
    finally:  # left another way (an error, or where the exit cannot be run at once): as before
        if _console["memory_only"] or _console["collector_off"]:
            import gc

            gc.enable()
        _console.update(on=False, memory_only=False, collector_off=False)


def application(args: list[str]) -> typer.Typer:
    """The application that runs the command line `args`: when it starts with a command or a
    group of commands of the application's own (classify, seek..., queue, report), the
    application with that command or group alone, the same for it (its options, help and
    errors), whose click commands are then the only ones built (0.003 s instead of 0.017 s for
    all of them, at every start); else the whole application (`triage --help`, `triage --version`)."""
    from typer.main import get_command_name

    first = args[0] if args else None
    commands = [info for info in app.registered_commands
                if (info.name or get_command_name(info.callback.__name__)) == first]
    groups = [info for info in app.registered_groups if info.name == first]
    if len(commands) + len(groups) != 1:
        return app
    alone = copy.copy(app)
    alone.registered_commands, alone.registered_groups = commands, groups
    return alone


def _no_collections() -> None:
    """Said by seek, release, and classify with the local engine, before their job: in the `triage`
    command (run), the garbage collector is off from then on. The process ends with the command,
    and the job makes almost no reference cycles: on 86,000 and on 290,000 generated messages alike,
    classify's collections freed 966 objects, about 1,000 with a workspace brought up to date and
    in a release; reference counting frees the rest. What they did was go through what the job
    holds, a few million containers (the vocabulary it learns, the rows it writes): 0.05 s of
    classifying 86,000 generated messages (0.14 s with a workspace, 0.4 s for `seek --words`, 1.8
    s of 9.4 s for their release), 0.16 s of 290,000, the collection of all of it right after the
    job included. The workers of --jobs, forked during the job, start with it off too. Called
    in-process (tests, the Python API), it does nothing."""
    if _console["on"]:
        import gc

        gc.disable()
        _console["collector_off"] = True


def _only_memory_left() -> None:
    """Said by a command whose output is written and closed, with nothing left open but what it
    learnt in memory (classify without a workspace, seek). In the `triage` command (run), the
    process then leaves without freeing that memory object by object (millions of spellings,
    stretches and labels: 0.1 to 0.2 s after classifying 86,000 messages) and without the
    collection of all of them that the garbage collector would start on the next allocations.
    Called in-process (tests, the Python API), it does nothing."""
    if _console["on"]:
        import gc

        gc.disable()
        _console["memory_only"] = True


def _exit_at_once() -> None:
    """Leave with status 0 as Python would, less the freeing of every object: the other threads
    are waited for and the exit functions run as at Python's own exit (the Dask engine's threads,
    temporary files), the standard streams are flushed (status 120 if that fails, as Python's),
    then the process ends (os._exit). Left to Python's own exit where its threading or atexit
    module lacks what it runs at exit."""
    import atexit
    import os
    import threading

    wait_for_threads = getattr(threading, "_shutdown", None)
    run_exit_functions = getattr(atexit, "_run_exitfuncs", None)
    if wait_for_threads is None or run_exit_functions is None:
        return
    wait_for_threads()
    run_exit_functions()
    status = 0
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            status = 120
    os._exit(status)


def _blas_on_one_thread() -> None:
    """Run numpy's linear algebra library (OpenBLAS) on one thread in the command, unless
    $OPENBLAS_NUM_THREADS says otherwise. Loaded with numpy, its other threads wait for work by
    spinning, about 0.1 s of CPU in every command, on another core. The tool has little work for
    them: the vector products of training the letter model (a logistic regression) and the small
    matrix product of `evaluate`'s bootstrap. Set before numpy is first imported, which this
    module does not do."""
    import os

    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")


def _stop_cleanly_on_sigterm() -> None:
    """Make `kill` (SIGTERM) unwind the stack as Ctrl-C does, so that an output being
    written is removed (triage.io.outputs.atomic_output) instead of left as a temporary file."""
    import os
    import signal

    main = os.getpid()

    def stop(signum, frame):
        if os.getpid() != main:  # a forked worker of classify --jobs: die the default way
            signal.signal(signum, signal.SIG_DFL)
            os.kill(os.getpid(), signum)
            return
        raise SystemExit(128 + signum)

    signal.signal(signal.SIGTERM, stop)
