"""The Python API: every command of the command line as a function, DataFrames in, DataFrames out.

    import pandas as pd
    import triage

    messages = pd.read_csv("corpus.csv")
    classified = triage.classify(messages)                 # the columns of `triage classify`
    queue = triage.queue_export(classified)                # what a human must read, most uncertain first

Each function takes the options of its command, with the same names and defaults (a test
holds them together), less those that only concern files (`--output`, `--force`,
`--encoding`, `--delimiter`, `--on-bad-lines`, `--out-dir`, ...). Both call the same jobs
(triage.jobs and the modules below it): the command line with files, the API with the
messages in memory (triage.io.frames) and the rows collected instead of written. Messages are
a pandas DataFrame, a polars DataFrame, any iterable of (id, text) pairs, a list of texts or a dict
({id: text}, or {column: [values]} as pandas.DataFrame reads it); results come back in the kind
given (pandas for pairs, texts and dicts). Errors are triage.errors' classes: BadInput, BadModel,
BadOption, OutputRefused / OutputExists, all of them InputError. docs/api.md has a worked
example.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from triage.io import frames
from triage.errors import BadInput, BadOption
from triage.io.messages import DEFAULT_ID_COLUMN, ReadOptions
from triage import jobs as _jobs
from triage.model import Model
from triage.schema import CLASSIFY_COLUMNS, QUEUE_COLUMNS, SEEK_COLUMNS, WORD_COLUMNS
from triage.model.training import check_feature_set

__all__ = [
    "Model", "Release", "Report", "classify", "evaluate", "list_lexicons", "queue_apply", "queue_export", "release",
    "report_cv", "report_holdout", "report_infogain", "report_tree", "review", "seek", "train",
]

# Columns of the results that are numbers (a file holds them as text).
_NUMBERS = ("score", "risk")
_INTEGERS = ("start", "end")


@dataclass
class Report:
    """A report as the command line writes it: Markdown (shown as such in a notebook), the data
    of its JSON file, its figure (a matplotlib Figure) and its tables as DataFrames."""

    name: str
    markdown: str
    data: dict = field(default_factory=dict)
    figure: Any = None
    tables: dict[str, Any] = field(default_factory=dict)

    def _repr_markdown_(self) -> str:
        return self.markdown

    def __str__(self) -> str:
        return self.markdown


@dataclass
class Release:
    """The publishable corpus (a DataFrame) and its datasheet (a dict, and as Markdown)."""

    corpus: Any
    datasheet: dict

    def markdown(self) -> str:
        from triage.publication.datasheet import datasheet_markdown

        return datasheet_markdown(self.datasheet)

    def _repr_markdown_(self) -> str:
        return self.markdown()


def _read(text_column: str = "text", id_column: str | None = None, label_column: str = "label") -> ReadOptions:
    return ReadOptions(text_column=text_column, id_column=DEFAULT_ID_COLUMN if id_column is None else id_column,
                          label_column=label_column)


def _id_column(source: frames.Source, id_column: str | None) -> str | None:
    if id_column is not None:
        return id_column
    return "id" if "id" in source.records.columns else None


def _classified(data, what: str = "classified"):
    """A classified file's path as it is, or a DataFrame of classified rows as a frames.Source."""
    if isinstance(data, (str, os.PathLike)):
        return Path(data)
    return frames.source(data, what=what)


def _records(given):
    return given.records if isinstance(given, frames.Source) else given


def _like(given):
    """What a result built from `given` should look like: the same kind of frame with its id
    values (pandas for files and pairs)."""
    if isinstance(given, frames.Source):
        return given if given.kind != frames.PAIRS else frames.PANDAS
    return frames.PANDAS


def _model(model):
    if model is None or isinstance(model, Model):
        return model
    return Model.load(model)


# ---------------------------------------------------------------------- the commands


def seek(data, *, words: bool = False, text_column: str = "text", id_column: str | None = None,
         label_column: str = "label"):
    """Seek&Hide: every message labelled TA / NTA / UNTAGGED with what it hides (`triage seek`),
    or one row per word with its label and rule (`words=True`)."""
    source = frames.source(data)
    summary = _jobs.run_seek(source.records, None, words=words, read=_read(text_column, id_column, label_column))
    if words:
        return frames.frame(WORD_COLUMNS, summary.rows, source, integers=_INTEGERS,
                            id_column=_id_column(source, id_column))
    return frames.frame(SEEK_COLUMNS, summary.rows, source, one_per_message=True,
                        id_column=_id_column(source, id_column))


def _hide(hide) -> str | list[str]:
    """The `hide` argument: None means the default; a text or a sequence of category names,
    else an option error (not a TypeError from deep inside)."""
    if hide is None:
        return "default"
    if isinstance(hide, str):
        return hide
    if isinstance(hide, (Sequence, set, frozenset)) and all(isinstance(tag, str) for tag in hide):
        return list(hide)
    raise BadOption(f"hide must be category names such as \"default,LIE\" or [\"default\", \"LIE\"], not {hide!r:.60}")


def classify(data, *, model: Model | str | os.PathLike | None = None, policy: str | None = None,
             expert_budget: float = 0.10, calibrated: bool = False, hide: str | Sequence[str] | None = "default",
             jobs: int = 1, engine: str = "local", scheduler: str | None = None, text_column: str = "text",
             id_column: str | None = None, workspace: str | os.PathLike | None = None,
             known_names: str | os.PathLike | Sequence[str] | None = None):
    """Classify every message TA / NTA / EXPERT (`triage classify`): one row per message, in
    order, with the input's index; `score` and `risk` as numbers. `expert_budget` is a share
    (0 to 1) or a count of messages (500): exactly that many, the riskiest, go to the expert
    (or, with `calibrated`, those above the risk threshold calibrated at training). `hide`: the
    categories to hide, "default,LIE,MAR" or ["default", "LIE", "MAR"] (see docs/workflow.md).
    `known_names`: a file of names the team knows (one a line, as `--known-names`) or a list of
    names, hidden with their variants in every message. With `workspace`, also bring that review workspace up to date (decided messages are not asked
    again)."""
    from triage import review_workspace as review_module

    source = frames.source(data)
    chosen = _model(model)
    if workspace is not None:
        review_module.check_workspace_path(workspace)
        lone = frames.lone_surrogate(source)
        if lone:  # a workspace keeps the messages as UTF-8: refused before any work
            raise BadInput(f"{source.records.display}: row {lone[0]:,}, column {lone[1]!r}, holds a lone surrogate "
                           "code point (such as \\ud800: half of a UTF-16 pair, not a character), which a review "
                           "workspace cannot keep; replace it first, e.g. "
                           "text.str.encode('utf-8', 'replace').str.decode('utf-8')")
    from triage.seekhide.known import known_names_of

    own_names = known_names_of(known_names)
    options = dict(model_path=chosen, policy=policy, budget=expert_budget, calibrated=calibrated, hide=_hide(hide),
                   jobs=jobs, engine=engine, scheduler=scheduler, read=_read(text_column, id_column))
    if workspace is None:
        summary = _jobs.run_classify(source.records, None, known_names=known_names, **options)
        return frames.frame(CLASSIFY_COLUMNS, summary.rows, source, numbers=_NUMBERS, one_per_message=True,
                            id_column=_id_column(source, id_column))
    # As `classify --workspace`: the input checked against the workspace, the names the reviewers
    # taught hidden too (and the known names an earlier classify was given when none are given
    # now), and the rows handed to the workspace as they are made.
    # Paths by their file names: a folder can name its owner (/home/<login>/...).
    given = dict(model=os.path.basename(os.fspath(model)) if isinstance(model, (str, os.PathLike)) else None,
                 policy=policy, expert_budget=expert_budget, calibrated=calibrated, hide=hide,
                 text_column=text_column, id_column=id_column,
                 known_names=(os.path.basename(os.fspath(known_names)) if isinstance(known_names, (str, os.PathLike))
                              else None if known_names is None else f"<{own_names.count} names>"))
    summary, _ = _jobs.classify_with_workspace(
        source.records, None, workspace, known_names=own_names, say=_warn, names_option="known_names=",
        command="triage.classify(" + ", ".join(f"{k}={v!r}" for k, v in given.items() if v is not None) + ")",
        display="the classified DataFrame", id_column=id_column or "",
        model_file=model if isinstance(model, (str, os.PathLike)) else ("" if model is None else None), **options)
    return frames.frame(CLASSIFY_COLUMNS, summary.rows, source, numbers=_NUMBERS, one_per_message=True,
                        id_column=_id_column(source, id_column))


def _warn(line: str) -> None:
    """A line the command line would print, as a warning of the Python API, shown at the line that
    called `classify` (the say of jobs.workspace_names, through classify_with_workspace)."""
    import warnings

    warnings.warn(line, UserWarning, stacklevel=6)


def train(data, *, kind: str = "bagging", feature_set: str = "rich", normalise: bool = False, seed: int = 0,
          text_column: str = "text", label_column: str = "label", keep_scorer: bool = False) -> Model:
    """A model from labelled messages (`triage train`): the message model, the word scorer (learnt
    from a `spans` column of gold spans, as JSON text or lists, or else, or with `keep_scorer`, the
    embedded model's, kept) and the budget calibration on these messages.
    Save it with `model.save(path)`; classify with it as `triage.classify(data, model=model)`."""
    source = frames.source(data, what="training")
    summary = _jobs.run_train(source.records, None, kind=kind, feature_set=feature_set, normalise=normalise,
                             seed=seed, read=_read(text_column, None, label_column), keep_scorer=keep_scorer)
    return summary.model


def evaluate(data, *, model: Model | str | os.PathLike | None = None, policy: str = "budget",
             expert_budget: float = 0.10, hide: str | Sequence[str] | None = "default", folds: int = 5, seed: int = 0,
             feature_set: str = "rich", ablation: bool = False, no_cross_validation: bool = False,
             text_column: str = "text", label_column: str = "label", spans_column: str = "spans",
             known_names: str | os.PathLike | Sequence[str] | None = None, simulate_review: int = 0,
             seeds: int = 1, labelled: int | None = None) -> Report:
    """Score the whole pipeline against gold spans (`triage evaluate`) with the model classify
    uses (`model`, by default the embedded one) and, unless `no_cross_validation`, a model trained
    on the gold and cross-validated (`report.data["cross_validated"]`, with `seeds` seeds: the
    main figures' mean and standard deviation under `["seeds"]`): the report, with the budget
    curve of the model classify uses as a table (`tables["budget_curve"]`) and a figure.
    `known_names` as classify's. With `simulate_review` rounds, also the review loop with a
    perfect reviewer (`tables["simulated_review"]`, a row per round). With `labelled` N, also a
    model from labels alone on N of the gold's messages (`report.data["cross_validated"]["labels_only"]`).
    `data` may be a list of DataFrames, gold sets of different corpora: they are cross-validated
    together (grouped by their `donor` column, the donors of two sets never the same) and every
    figure is given per set (`report.data["files"]`; the tables have a `gold` column)."""
    from dataclasses import replace

    several = isinstance(data, (list, tuple)) and bool(data) and all(
        frames._module_of(d) in ("pandas", "polars") for d in data)
    sources = ([frames.source(d, what=f"gold {i}") for i, d in enumerate(data, 1)] if several
               else [frames.source(data, what="gold")])
    report = _jobs.run_evaluate([s.records for s in sources] if several else sources[0].records, None,
                               model_path=_model(model), policy=policy, budget=expert_budget,
                               hide=_hide(hide), folds=folds, seed=seed, feature_set=feature_set, ablation=ablation,
                               cross_validation=not no_cross_validation,
                               read=replace(_read(text_column, None, label_column), spans_column=spans_column),
                               known_names=known_names, simulate_review=simulate_review, seeds=seeds,
                               labelled=labelled)
    parts = report.data["files"] if "files" in report.data else [report.data]
    curve, by_type, review = [], [], []
    for part in parts:
        first = {"gold": part["gold"]} if several else {}
        points = [("budget", point) for point in part["budget_curve"]] + [("paper", part["paper_policy"])]
        curve += [{**first, "policy": policy, **{k: v for k, v in point.items() if not isinstance(v, dict)}}
                  for policy, point in points]
        by_type += [{**first, "policy": policy, "budget": point.get("budget"), "type": tag, **counts}
                    for policy, point in points for tag, counts in sorted(point.get("residual_by_type", {}).items())]
        if simulate_review:
            review += [{**first, **row} for row in part["simulated_review"]["rows"]]
    kind = _like(sources[0])
    tables = {"budget_curve": _records_frame(curve, kind), "residual_by_type": _records_frame(by_type, kind)}
    if ablation:
        tables["ablation"] = _records_frame(report.data["ablation"], kind)
    if simulate_review:
        tables["simulated_review"] = _records_frame(review, kind)
    return Report("evaluate", report.markdown, report.data, report.figure, tables)


def report_cv(data, *, folds: int = 10, seed: int = 0, feature_set: str = "paper", normalise: bool = False,
              compare: bool = False, text_column: str = "text", label_column: str = "label") -> Report:
    """Cross-validation of the baseline, the tree and bagging (`triage report cv`, Table 6);
    with `compare`, of every feature set on the same folds (`tables["models"]` has a row per
    feature set and model)."""
    from triage.features import FEATURE_SETS
    from triage.model.reports.cv import run_cv
    from triage.model.reports.render import comparison_markdown

    check_feature_set(feature_set)
    source = frames.source(data, what="labelled")
    read = _read(text_column, None, label_column)
    evaluations = {name: run_cv(source.records, folds=folds, seed=seed, feature_set=name, normalise=normalise,
                                read=read)
                   for name in (FEATURE_SETS if compare else [feature_set])}
    if not compare:
        return _evaluation_report(evaluations[feature_set], _like(source))
    rows = [row for name, evaluation in evaluations.items() for row in _model_rows(evaluation, features=name)]
    return Report("cv", comparison_markdown(evaluations), {name: e.to_dict() for name, e in evaluations.items()},
                  None, {"models": _records_frame(rows, _like(source))})


def report_holdout(data, *, train_first: int = 4000, test_next: int = 2000, seed: int = 0,
                   feature_set: str = "paper", normalise: bool = False, text_column: str = "text",
                   label_column: str = "label") -> Report:
    """The paper's time-ordered test (`triage report holdout`): train on the first rows, test on the next."""
    from triage.model.reports.cv import run_holdout

    check_feature_set(feature_set)
    source = frames.source(data, what="labelled")
    return _evaluation_report(run_holdout(source.records, train_first=train_first, test_next=test_next, seed=seed,
                                          feature_set=feature_set, normalise=normalise,
                                          read=_read(text_column, None, label_column)), _like(source))


def report_infogain(data, *, feature_set: str = "paper", normalise: bool = False, balanced: bool = False,
                    seed: int = 0, text_column: str = "text", label_column: str = "label") -> Report:
    """The features ranked by information gain (`triage report infogain`, Table 5)."""
    from triage.model.reports.render import (
        infogain_figure,
        infogain_report,
        infogain_report_markdown,
    )

    check_feature_set(feature_set)
    source = frames.source(data, what="labelled")
    report = infogain_report(source.records, feature_set=feature_set, normalise=normalise, balanced=balanced,
                             seed=seed, read=_read(text_column, None, label_column))
    data_ = report.to_dict()
    return Report("infogain", infogain_report_markdown(report), data_, infogain_figure(report),
                  {"ranking": _records_frame(data_["ranking"], _like(source))})


def report_tree(model: Model | str | os.PathLike, *, tree_index: int = 0) -> Report:
    """A tree of the model as Weka's J48 prints it (`triage report tree`, Figure 1), and drawn."""
    from triage.model.reports.render import model_tree, tree_heading
    from triage.model.reports.tree import tree_figure

    report = model_tree(_model(model), tree_index)
    figure = tree_figure(report.tree, report.feature_names, report.class_names)
    return Report("tree", f"{tree_heading(report)}\n\n```\n{report.text}\n```\n",
                  {"tree_index": report.tree_index, "trees": report.n_trees, "text": report.text}, figure)


def queue_export(classified):
    """The messages a human must read, most uncertain first, with what to look at and why
    (`triage queue export`). `classified`: what `classify` returned, or a classified file."""
    from triage.queue.files import export_queue

    given = _classified(classified)
    summary = export_queue(_records(given), None)
    return frames.frame(QUEUE_COLUMNS, summary.rows, _like(given), numbers=("score",), id_column="id")


def queue_apply(decisions, classified):
    """Every classified message with its final label and text (`triage queue apply`), from the
    queue with `expert_decision` / `expert_hide` filled in (a DataFrame or a file), or from a
    review workspace (its path)."""
    from triage.queue.files import apply_decisions
    from triage.review_workspace import apply_workspace, is_workspace

    given = _classified(classified)
    if isinstance(decisions, (str, os.PathLike)) and is_workspace(decisions):
        collected: list = []
        apply_workspace(decisions, _records(given), None, collected=collected)
        columns, rows = collected
    else:
        summary = apply_decisions(_records(_classified(decisions, what="decisions")), _records(given), None)
        columns, rows = summary.columns, summary.rows
    return frames.frame(columns, rows, _like(given), numbers=[c for c in _NUMBERS if c in columns],
                        one_per_message=True, id_column="id")


def review(classified, *, workspace: str | os.PathLike | None = None, port: int = 0, no_browser: bool = False,
           reviewer: str | None = None, audit: int = 200, seed: int = 0,
           lexicon_dir: str | os.PathLike | None = None, report: bool = False, learnt: bool = False,
           unlearn: int | None = None, consistency: bool = False, decide_consistency: str | None = None,
           spelling: str | None = None, consistency_all: str | None = None, case_search: str | None = None,
           case_tag: str | None = None, case_status: str | None = None, case_kind: str | None = None,
           yes: bool = False, undo_consistency: bool = False, import_queue=None,
           double: float | None = None, lead: bool = False, allow_release_of_hidden: bool = False,
           host: str = "127.0.0.1", certificate: str | os.PathLike | None = None,
           key: str | os.PathLike | None = None, invite: str | Sequence[str] | None = None,
           revoke: str | Sequence[str] | None = None):
    """Review the queue in the browser (`triage review`): serves the page until interrupted
    (in a notebook: the stop button). With `report`, `learnt` or `unlearn`, returns the lines
    the command prints instead. `classified`: a classified file, or a DataFrame from
    `classify` with its `workspace`. `consistency`: the consistency cases' lines (the `case_*`
    filters narrow them); `decide_consistency` with `spelling` decides one case, `consistency_all`
    every case the filters find, and return what they did (a decision that makes hidden items readable,
    and every `consistency_all`, only with `yes`: else NotConfirmed, its preview in `.lines`);
    `undo_consistency` undoes the reviewer's last consistency decision (one that makes hidden items
    readable only with `yes`);
    `import_queue`: a filled queue file (or DataFrame) whose decisions are stored as `reviewer`'s (an NTA
    over contact details the machines hid only with `allow_release_of_hidden`).
    A team shares the lead's server: `host` an address of this computer colleagues reach (or 0.0.0.0, every one)
    (`certificate` and `key` for TLS), `invite` a name or names whose personal links to return
    (as lines, with `host` and `port`), `revoke` names whose links to refuse; `double` marks a
    share for double review, `lead` lets the printed address resolve disagreements."""
    from triage import review_workspace as review_module
    from triage.review_workspace import invite_lines, review_lines, serve_review

    if invite or revoke:
        names = [[n] if isinstance(n, str) else list(n) for n in (invite or (), revoke or ())]
        return invite_lines(_records(_classified(classified)), workspace, invite=names[0], revoke=names[1],
                            host=host, port=port, certificate=certificate, key=key)
    review_module.check_consistency_options(consistency, decide_consistency, spelling, consistency_all, yes,
                                            (case_search, case_tag, case_status, case_kind), undo_consistency)
    if undo_consistency:
        return review_module.undo_consistency_lines(_records(_classified(classified)), workspace, reviewer=reviewer,
                                                    yes=yes)
    if decide_consistency is not None or consistency_all is not None:
        return review_module.consistency_decision_lines(
            _records(_classified(classified)), workspace, decide=decide_consistency, spelling=spelling,
            bulk=consistency_all, q=case_search, tag=case_tag, status=case_status, kind=case_kind,
            reviewer=reviewer, yes=yes)
    if import_queue is not None:
        given = import_queue if isinstance(import_queue, (str, os.PathLike)) else _records(
            _classified(import_queue, what="queue"))
        return _jobs.import_queue_lines(_records(_classified(classified)), workspace, given, reviewer=reviewer,
                                        audit=audit, seed=seed, allow_release_of_hidden=allow_release_of_hidden)
    if consistency:
        lines = review_module.consistency_list_lines(_records(_classified(classified)), workspace, q=case_search,
                                                     tag=case_tag, status=case_status, kind=case_kind)
        if not (report or learnt or unlearn is not None):
            return lines
        return lines + review_lines(_records(_classified(classified)), workspace, reviewer=reviewer,
                                    lexicon_dir=lexicon_dir, report=report, learnt=learnt, unlearn=unlearn)
    if report or learnt or unlearn is not None:
        return review_lines(_records(_classified(classified)), workspace, reviewer=reviewer, lexicon_dir=lexicon_dir,
                            report=report, learnt=learnt, unlearn=unlearn)
    return serve_review(_records(_classified(classified)), workspace, port=port, no_browser=no_browser, reviewer=reviewer,
                        audit=audit, seed=seed, lexicon_dir=lexicon_dir, announce=print, say=print, double=double,
                        lead=lead, host=host, certificate=certificate, key=key)


def release(classified, *, workspace: str | os.PathLike | None = None, style: str = "tags", seed: int = 0,
            columns: str | Sequence[str] | None = None, input=None, withhold_undecided: bool = False,
            hide: str | Sequence[str] | None = None, hide_differs_ok: bool = False,
            donor_column: str | None = None, date_column: str | None = None,
            inconsistent_ok: bool = False, evaluation: str | os.PathLike | None = None,
            allow_disagreements: bool = False, reviewer_names: bool = False,
            gold_columns: bool = False) -> Release:
    """The publishable corpus in a release style and its datasheet (`triage release`), from a
    classified DataFrame (or file) and its review workspace. `input`: the messages as they
    were classified (a DataFrame or a file), for their other columns, published when named in
    `columns` (gold columns such as `label` and `spans` only with `gold_columns`). `hide`: by
    default the one
    `classify` recorded in the workspace; another is refused unless `hide_differs_ok`.
    `donor_column`, `date_column`: the input's columns the datasheet counts donors and dates in
    (default: found by name). `reviewer_names`: the datasheet names the reviewers as they reviewed
    (default: reviewer 1, reviewer 2...)."""
    from triage.publication.corpus import run_release

    chosen = [c.strip() for c in columns.split(",") if c.strip()] if isinstance(columns, str) else columns
    given = None if input is None else (Path(input) if isinstance(input, (str, os.PathLike))
                                        else frames.source(input, what="input").records)
    given_classified = _classified(classified)
    summary = run_release(_records(given_classified), None, workspace=workspace, style=style, seed=seed,
                          columns=list(chosen) if chosen else None, input_path=given,
                          withhold_undecided=withhold_undecided,
                          hide=None if hide is None else _hide(hide), hide_differs_ok=hide_differs_ok,
                          donor_column=donor_column, date_column=date_column, inconsistent_ok=inconsistent_ok,
                          evaluation=evaluation, allow_disagreements=allow_disagreements,
                          reviewer_names=reviewer_names, gold_columns=gold_columns,
                          command=f"triage.release(style={style!r})")
    return Release(frames.frame(summary.columns, summary.rows, _like(given_classified), id_column="id"), summary.sheet)


def list_lexicons(*, directory: str | os.PathLike | None = None):
    """The lexicons with their size, source and licence (`triage lexicons`), as a pandas DataFrame."""
    from triage import lexicons as lexicon_module

    rows = [[i.name, i.role, i.entries, i.source, i.licence] for i in lexicon_module.inventory(directory).describe()]
    return frames.frame(["name", "role", "entries", "source", "licence"], rows)


# ---------------------------------------------------------------------- helpers


def _records_frame(records: list[dict], kind: str):
    columns = list(dict.fromkeys(key for record in records for key in record))
    flat = [[_flat(record.get(c)) for c in columns] for record in records]
    return frames.frame(columns, flat, kind)


def _flat(value):
    return value if value is None or isinstance(value, (str, int, float, bool)) else str(value)


def _model_rows(evaluation, **first) -> list[dict]:
    """A row per model of a cv or holdout run: accuracy, balanced accuracy, ROC AUC, and
    precision, recall and F-measure of each class."""
    return [{**first, "model": name, "accuracy": s.accuracy, "balanced_accuracy": s.balanced_accuracy,
             "roc_auc": s.roc_auc,
             **{f"{c}_{m}": s.per_class.get(c, {}).get(m) for c in ("TA", "NTA")
                for m in ("precision", "recall", "f_measure")}}
            for name, s in evaluation.models.items()]


def _evaluation_report(evaluation, kind: str) -> Report:
    from triage.model.reports.render import confusion_figure, model_report_markdown

    return Report(evaluation.report, model_report_markdown(evaluation), evaluation.to_dict(),
                  confusion_figure(evaluation), {"models": _records_frame(_model_rows(evaluation), kind)})
