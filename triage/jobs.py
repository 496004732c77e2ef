"""The jobs of the command line and of the Python API: from input files to output files.

CLI -> these jobs -> the classifier, training, evaluation, engines, queue, reports -> files.
The API (triage.api) runs the same jobs on messages held in memory (triage.io.messages.Records) and
with no output file: the rows are then kept in the job's summary.
Each job reads its input through triage.io (validated before anything is written), checks
every output path before any work, and writes through triage.io.outputs (all or nothing, never
over an input, never replacing without `force`). Where the output goes when the user names
none is the command line's choice, not the jobs'.
"""

from __future__ import annotations

import contextlib
import json
import operator
import os
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from triage import combiner, engines, lexicons, model
from triage.io import outputs
from triage.io.formats import format_for
from triage.io.messages import MessageTable, Records, RepeatedIds, source_name
from triage.io.writing import HeldChunks, table_output
from triage.classifier import Classifier, FoldedPairs, fit_in_batch
from triage.seekhide import components as _seeking  # noqa: F401  (registers the components of triage seek)
from triage.engines import fewer_collections
from triage.errors import BadInput, BadOption
from triage.model.gold import gold_labels, labelled_gold
from triage.io.messages import ReadOptions
from triage.pipeline import Context, Pipeline
from triage.pipeline.arrays import string_hashes
from triage.pipeline.progress import progress as show_progress
from triage.schema import (
    CLASSIFY_COLUMNS,
    DECISIONS,
    EXPERT,
    NTA,
    SEEK_COLUMNS,
    TA,
    TAG_WORDS,
    WORD_COLUMNS,
)
from triage.seekhide import SeekAndHide, SeekTables, known_names_of, tables

# ---------------------------------------------------------------------- seek


@dataclass
class SeekSummary:
    output: Path | None
    messages: int
    tables: SeekTables
    skipped_lines: list[int] = field(default_factory=list)
    rows: list[list] | None = None  # with no output file: the rows, cells in column order


def seek_rows(table: MessageTable, seeker: SeekAndHide, labels: list[str], words: bool,
              chunk_size: int = 5_000) -> Iterator[dict]:
    """The rows of `triage seek`, a chunk at a time through the preset `seek-rows` (or
    `seek-words`, one row per word), appending each message's label to `labels`."""
    pipeline = Pipeline.preset("seek-words" if words else "seek-rows", Context(seeker=seeker))
    for chunk in table.pairs(chunk_size):
        batch = pipeline(texts=[text for _, text in chunk])
        labels += batch.seekhide
        if words:
            for (ident, text), found in zip(chunk, batch.words):
                for start, end, word in found:
                    yield {
                        "id": ident, "start": start, "end": end, "word": text[start:end],
                        "label": word.label, "rule": word.rule, "match": word.match,
                    }
            continue
        for (ident, text), label, anonymised, hidden, highlighted in zip(
                chunk, batch.seekhide, batch.anonymised, batch.hidden, batch.highlighted):
            yield {
                "id": ident,
                "text": text,
                "seekhide": label,
                "anonymised": anonymised,
                "hidden": hidden,
                "highlighted": json.dumps(highlighted, ensure_ascii=False),
            }


@fewer_collections
def run_seek(
    input_path: Path | Records,
    output: Path | None,
    *,
    words: bool = False,
    read: ReadOptions | None = None,
    force: bool = False,
    seeker: SeekAndHide | None = None,
) -> SeekSummary:
    """Seek&Hide on every message: labels, anonymised text, hidden spans (or one row per
    word with `words`). With a gold label column, also the paper's Tables 3 and 4.
    With no `output`, the rows are kept in the summary (the Python API)."""
    read = read or ReadOptions()
    output = Path(output) if output is not None else None
    if output is not None:
        outputs.check_output(output, force=force, inputs=[input_path])
    table = read.open(input_path)
    has_gold = read.label_column in table.columns
    gold = gold_labels(table, read.label_column) if has_gold else None
    seeker = seeker or SeekAndHide(lexicons.default())
    labels: list[str] = []
    columns = WORD_COLUMNS if words else SEEK_COLUMNS
    with table_output(output, columns, force=force, protect=[input_path]) as writer:
        writer.write_many(seek_rows(table, seeker, labels, words))
    return SeekSummary(output, len(labels), tables(labels, gold), list(getattr(table, "skipped", [])),
                       rows=getattr(writer, "rows", None))


# ---------------------------------------------------------------------- classify


@dataclass
class ClassifySummary:
    output: Path | None
    messages: int
    decisions: dict[str, int]
    seekhide: dict[str, int]
    chart: Path | None = None
    queue: Path | None = None
    queued: int = 0
    skipped_lines: list[int] = field(default_factory=list)  # bad rows skipped (--on-bad-lines skip/warn)
    repeated_ids: int = 0  # ids found on more than one row (all rows are classified anyway)
    repeated_rows: int = 0  # rows whose id an earlier row already had
    model: str = ""  # which model decided, with what policy: a tampered or wrong model shows here
    rows: list[list] | None = None  # with no output file: the rows, cells in CLASSIFY_COLUMNS order
    hide: tuple[str, ...] = ()  # the categories hidden (--hide)
    known_names: object = None  # the KnownNames hidden (--known-names), or None
    budget: combiner.ExpertBudget | None = None  # the expert budget asked for (budget policy only)
    calibrated_threshold: float | None = None  # routed by this risk threshold instead of a ranking
    policy: str = ""  # the combination policy that decided (the option's, else the model's)
    model_sha256: str = ""  # the SHA-256 of the model's bytes
    model_metadata: dict = field(default_factory=dict)  # what the model file records (training, evaluation)

    @property
    def expert(self) -> int:
        return self.decisions.get(EXPERT, 0)

    def budget_line(self) -> str | None:
        """The budget asked for and the share actually sent, e.g.
        "expert budget: 10% asked (200 messages), 200 sent (10.00%)"."""
        if self.budget is None:
            return None
        sent = f"{self.expert:,} sent ({100 * self.expert / (self.messages or 1):.2f}%)"
        if self.calibrated_threshold is not None:
            return (f"expert budget: {self.budget.asked()} asked, {sent} by the risk threshold calibrated at "
                    f"training ({self.calibrated_threshold:.4f}), not a ranking of this corpus")
        if self.budget.count is not None:
            return f"expert budget: {self.budget.asked()} asked, {sent}"
        return f"expert budget: {self.budget.asked()} asked ({self.budget.messages(self.messages):,} messages), {sent}"

    def lines(self) -> list[str]:
        n = self.messages or 1
        out = [f"{self.messages:,} messages" + (f" -> {self.output}" if self.output else "")]
        for decision in DECISIONS:
            count = self.decisions.get(decision, 0)
            out.append(f"  {decision:<7}{count:>10,}  {100 * count / n:6.2f}%")
        untagged = self.seekhide.get("UNTAGGED", 0)
        out.append(
            f"expert workload: {self.expert:,} messages to read "
            f"(Seek&Hide alone: {untagged:,} untagged; reading everything: {self.messages:,})"
        )
        if budget := self.budget_line():
            out.append(budget)
        if self.model:
            out.append(f"model: {self.model}")
        if self.hide:
            out.append(f"hidden: {combiner.hide_text(self.hide)} ({', '.join(TAG_WORDS[t] for t in self.hide)})")
        if self.known_names is not None:
            source = f" from {self.known_names.source}" if self.known_names.source else ""
            out.append(f"known names: {self.known_names.count:,}{source}, hidden with their variants")
        if self.chart:
            out.append(f"chart: {self.chart}")
        if self.queue:
            out.append(f"expert queue: {self.queued:,} messages -> {self.queue}")
        return out


@fewer_collections
def run_classify(
    input_path: Path | Records,
    output: Path | None,
    *,
    model_path: Path | model.Model | None = None,
    queue_path: Path | None = None,
    policy: str | None = None,
    budget: float | int | combiner.ExpertBudget = 0.10,
    hide: str | tuple[str, ...] = "default",
    calibrated: bool = False,
    known_names=None,
    read: ReadOptions | None = None,
    jobs: int = 1,
    engine: str = "local",
    scheduler: str | None = None,
    chunk_size: int | None = None,
    force: bool = False,
    queue_force: bool | None = None,
    chart: bool = True,
    progress: bool = False,
    staged=None,
    check_input=None,
) -> ClassifySummary:
    """Classify every message (the output contract: CLASSIFY_COLUMNS, one row per input row,
    same order), print-ready summary, bar chart, and optionally the expert's queue (replaced
    only with `queue_force`, which defaults to `force`).
    With no `output`, the rows are kept in the summary instead (the Python API), with no chart.
    `model_path` may be a model file or a triage.model.Model. `staged`: a review workspace's
    staging (Workspace.staging), which takes the rows as they are made and the exact budget's
    decisions, so that the workspace never reads the output back; `check_input` (InputCheck)
    checks the input on the run's first read of it, before anything is written. `engine` says where the chunks
    are classified (triage.engines: this machine, or Dask); `chunk_size`, how many messages a chunk holds (by
    default BATCH_MESSAGES in one process, CHUNK_MESSAGES with workers, and at most about BATCH_CHARACTERS
    characters of text).
    With the budget policy, exactly `budget` of the messages (a share, rounded, or a count) go
    to the expert: the riskiest of the whole corpus, ties in input order. With `calibrated`,
    each message is routed by the risk threshold calibrated at training instead (the same rule
    for every part of a corpus that arrives in parts; the share sent is then only close to the
    budget)."""
    budget = combiner.check_budget(budget)
    hide = combiner.parse_hide(hide)
    known_names = known_names_of(known_names)
    if calibrated and budget.count is not None:
        raise BadOption("a count of messages needs the whole corpus ranked: with --calibrated, give the expert "
                        "budget as a share (e.g. 0.05)")
    engines.check_engine(engine)
    characters, batch = None, None
    if chunk_size is None:
        chunk_size = BATCH_MESSAGES if engine == "local" and jobs <= 1 else CHUNK_MESSAGES
        characters = BATCH_CHARACTERS
        batch = (BATCH_MESSAGES, BATCH_CHARACTERS)  # what workers classify at once, two chunks they keep at most
    if scheduler and engine != "dask":
        raise BadOption("--scheduler is for --engine dask")
    read = read or ReadOptions()
    # The queue may hold an expert's answers: the CLI forces the replacement of its own default
    # output under reports/, never of a queue the user did not ask to replace.
    queue_force = force if queue_force is None else queue_force
    output = Path(output) if output is not None else None
    output_format = format_for(output) if output is not None else "cells"
    chart_path = output.with_suffix(".summary.png") if chart and output is not None else None
    if queue_path is not None:
        from triage.queue.files import queue_format

        queue_format(queue_path, None)
    if model_path is not None and not isinstance(model_path, model.Model):
        model_path = Path(model_path)
    model_file = model.file_of(model_path)
    # Every output refused now, not after classifying the whole corpus.
    outputs.check_outputs([(output, force), (chart_path, force), (queue_path, queue_force)],
                          inputs=[input_path, model_file])
    session, pool, reader, failed = None, None, None, True
    try:
        if engine == "dask" and scheduler:
            # Opened first, for both passes (engines.DaskSession): the cluster's workers count the
            # statistics too. A local cluster starts after the statistics pass, counted in `jobs`
            # processes forked from this one: sending every text to its workers costs more.
            session = engines.DaskSession(jobs, scheduler).__enter__()
        table = read.open(input_path)
        if engine == "local" and jobs > 1:
            # Read by a process of its own while this one loads the model and makes the tables;
            # it hashes what the workspace's checks of the input keep, as it reads.
            reader = engines.ReadAhead(table, chunk_size, characters, jobs,
                                       digest=check_input.digest if check_input is not None else None)
        predictor = model.load_predictor(model_path or model.default_model_path())
        by_budget = (policy or (predictor.metadata.get("policy") or {}).get("name", "paper")) == "budget"
        ranked = by_budget and not calibrated
        share = None if ranked else budget.share  # the Classifier's calibrated threshold, or none: ranked here
        stats, chunks = None, None
        # Made before the statistics pass, which only its word scorer needs: the workers of --jobs
        # are forked with it. With the dask engine, only for a local cluster whose workers are forked
        # with it, once this process has learnt the first chunk's spellings while the statistics are
        # counted (Classifier.learn, engines.run_chunks).
        here = engine == "local" or not scheduler and engines.FORKED_LOCAL_WORKERS
        classifier = Classifier(predictor, policy, share, output_format=output_format, hide=hide,
                                known_names=known_names) if here else None
        if engine == "local" and jobs > 1:
            # Forked once, for both passes: the worker that counts a chunk keeps it and classifies it.
            predictor.prepare()  # the trees' tables made once, here, for every worker
            # Counted in chunks (work for every worker sooner), classified in batches of two chunks a
            # worker keeps where they fit in one process's batch.
            pool = engines.KeepingPool(classifier, jobs, batch=batch)
        if reader is not None and predictor.word_forest is None:  # no statistics pass: classify reads
            reader.close()
            reader = None
        if predictor.word_forest is not None:
            # Counted in `jobs` processes of this machine, or by the workers of a Dask scheduler.
            learn = classifier.learn if classifier is not None and jobs > 1 and pool is None else None
            # On a local Dask cluster, the classifying workers forked afterwards take the chunks kept
            # from the memory they start with (engines.share_by_fork).
            stats, chunks = corpus_stats(table, chunk_size, predictor, jobs=jobs, characters=characters,
                                         batch=batch,
                                         observe=check_input.add if check_input is not None else None,
                                         meanwhile=learn, session=session,
                                         share=here and jobs > 1 and pool is None, pool=pool, reader=reader)
            if check_input is not None:
                check_input.finish()
                check_input = None  # checked: the classify pass need not look again
        # The queue's rows handed over as classify makes them (the file is not read back for them).
        handover = _queue_handover(queue_path, output, ranked, budget, stats)
        keep_cells = staged is not None or handover is not None
        spec = None
        if engine == "dask":  # workers build their own classifier, or a local cluster's start with this one's
            if isinstance(model_path, model.Model) and model_path.path is None:
                raise BadOption("the dask engine's workers read the model from a file: save the model first")
            spec = engines.ClassifierSpec(model_file or model.default_model_path(), policy, share, stats,
                                          output_format=output_format, hide=hide, known_names=known_names,
                                          keep_cells=keep_cells)
        if classifier is not None:
            classifier.stats = stats
            classifier.keep_cells = keep_cells
            if staged is not None and engine == "local" and jobs <= 1:
                staged.seeker = classifier.seeker  # its labels are those of the rows (the workers' own with --jobs)
        decisions: Counter = Counter()
        seekhide: Counter = Counter()
        # Repeated ids are allowed here but `queue export` refuses them: count them to warn. A
        # 64-bit hash per row keeps memory at 8 bytes a row (the chance of a false alarm is a
        # few in a million for 10**7 rows).
        id_hashes: list = []
        protect = [input_path, model_file]
        risks: list[np.ndarray] = []
        tas: list[np.ndarray] = []  # whether each row's decision is TA, ranked
        with table_output(output, CLASSIFY_COLUMNS, force=force, protect=protect) as writer:
            if ranked:  # held back until the corpus is ranked; then the riskiest become EXPERT
                writer = HeldChunks(writer, "decision", output.parent if output is not None else None)
            if chunks is None:
                chunks = table.pairs(chunk_size, characters)
                chunks = engines.even_tail(chunks, jobs) if pool is not None else chunks
            if check_input is not None:  # no statistics pass: checked on this read, before the output is in place
                chunks = _observed(chunks, check_input.add)
            if progress:
                name = Path(input_path).name if isinstance(input_path, (str, os.PathLike)) else "messages"
                chunks = show_progress(chunks, f"classifying {name}", size=len, unit="messages")
            if table.id_column is not None:
                chunks = _hashing_ids(chunks, id_hashes)
            for done in engines.run_chunks(classifier, chunks, engine=engine, jobs=jobs, spec=spec, scheduler=scheduler,
                                           session=session, pool=pool):
                decisions.update(done.decisions)
                seekhide.update(done.seekhide)
                writer.write_chunk(done)
                if staged is not None:
                    staged.add_columns(done.columns)
                if handover is not None:
                    handover.add(done.columns, done.risk)
                if ranked:
                    risks.append(done.risk)
                    tas.append(done.ta)
            if check_input is not None:
                check_input.finish()
            if ranked:  # the budget's second phase: the riskiest of the whole corpus become EXPERT
                chosen = combiner.ExactBudget(budget).choose(np.concatenate(risks) if risks else np.zeros(0))
                was_ta = int(np.concatenate(tas)[chosen].sum()) if len(chosen) else 0
                changed = +Counter({TA: was_ta, NTA: len(chosen) - was_ta})
                decisions[EXPERT] += len(chosen)
                decisions.subtract(changed)
            drawing = None
            if pool is not None:  # every chunk classified: the workers and what they hold go now
                if chart_path is not None:  # the chart drawn by a worker while this process writes the rows
                    drawing = pool.run(_decision_chart, _chart_counts(decisions, seekhide))
                pool.stop()
            if ranked:
                replaced = writer.release(chosen, EXPERT)
                # Cells other than the chunks said (a first phase that decided EXPERT on its own): a bug, not bad input.
                if +replaced != +changed:
                    raise RuntimeError(f"exact budget: unexpected decision cells {sorted(replaced)}")
                if staged is not None:
                    staged.expert(chosen.tolist())
                writer = writer.writer
        summary = ClassifySummary(output, sum(decisions.values()), dict(decisions), dict(seekhide),
                                  rows=getattr(writer, "rows", None))
        summary.model = model_line(model_path, predictor.metadata, policy, budget)
        summary.hide = hide
        summary.known_names = known_names
        summary.policy = policy or (predictor.metadata.get("policy") or {}).get("name", "paper")
        summary.model_metadata = dict(predictor.metadata)
        if by_budget:
            summary.budget = budget
            if calibrated:
                summary.calibrated_threshold = predictor.risk_threshold(budget.share)
        summary.skipped_lines = list(table.skipped)
        if id_hashes:
            _, counts = np.unique(np.concatenate(id_hashes), return_counts=True)
            summary.repeated_ids, summary.repeated_rows = int((counts > 1).sum()), int((counts - 1).sum())
        if chart_path is not None:
            chart = drawing() if drawing is not None else _decision_chart(_chart_counts(decisions, seekhide))
            summary.chart = outputs.write_bytes(chart_path, chart, force=force, protect=protect)
        if queue_path and output is not None:
            from triage.queue.files import export_queue

            # Handed over unless ids repeat (the queue refuses them, naming their lines in the file) or the
            # classifying pass ranked more rows than the statistics pass counted (a file changed meanwhile).
            if handover is not None and not summary.repeated_ids and handover.holds(len(chosen) if ranked else 0):
                rows = handover.records(chosen if ranked else None, display=source_name(output))
                # The words of the queue's reasons are labelled as this classifier's Seek&Hide labels them.
                queued = export_queue(rows, queue_path, force=queue_force, protect=[output, *protect],
                                      classified=summary.messages,
                                      seeker=classifier.seeker if classifier is not None else None)
            else:
                queued = export_queue(output, queue_path, force=queue_force, protect=protect)
            summary.queue, summary.queued = Path(queue_path), queued.queued
        failed = False
        return summary
    finally:
        engines.stop_sharing()
        if reader is not None:
            reader.close()
        if pool is not None:
            pool.close(failed)
        if session is not None:
            session.__exit__(None, None, None)


def _queue_handover(queue_path, output, ranked: bool, budget, stats):
    """What keeps the rows of classify's output that go to the expert's queue
    (triage.queue.handover.QueueRows), or None with no queue to write. Ranked by the exact
    budget, the riskiest rows are kept: as many as the budget sends of the corpus the statistics
    pass counted (with no such count, the queue reads the classified file back)."""
    if not queue_path or output is None:
        return None
    from triage.queue.handover import QueueRows

    folder = Path(output).parent  # where the rows kept may go to a scratch file (LeanRows)
    if not ranked:
        return QueueRows(CLASSIFY_COLUMNS, folder=folder)
    if stats is None:
        return None
    return QueueRows(CLASSIFY_COLUMNS, budget.messages(stats.messages), folder=folder)


def classify_record(summary: ClassifySummary, *, command: str, model_path=None, calibrated: bool = False,
                    read: ReadOptions | None = None, input_path=None) -> dict:
    """What `classify --workspace` records in the workspace for the release and its datasheet: its
    command line and every setting that changes its output (policy, budget, --hide, model, how the
    input was read), with the model's own record of its training and evaluation when it has one."""
    read = read or ReadOptions()
    model_file = model.file_of(model_path) if model_path is not None else None
    if isinstance(model_path, model.Model):
        model_name = model_path.path.name if model_path.path else "a model trained in memory"
    else:
        model_name = Path(model_path).name if model_path is not None else "the embedded model"
    metadata = summary.model_metadata or {}
    return {
        "command": command,
        "input": source_name(input_path) if input_path is not None else None,
        "policy": summary.policy,
        "expert_budget": summary.budget.asked() if summary.budget is not None else None,
        "calibrated": bool(calibrated),
        "calibrated_threshold": summary.calibrated_threshold,
        "hide": list(summary.hide),
        **({"known_names": summary.known_names.record()} if summary.known_names is not None else {}),
        "model": {
            "name": model_name,
            "file": os.path.abspath(model_file) if model_file is not None else None,
            "line": summary.model,
            "fingerprint": str(metadata.get("metadata_sha256", ""))[:12] or None,
            "metadata_sha256": metadata.get("metadata_sha256"),
            "training_size": metadata.get("training_size"),
            "evaluation": model_evaluation(metadata),
        },
        "text_column": read.text_column,
        "id_column": read.id_column,
        "encoding": read.encoding,
        "delimiter": read.delimiter,
        "on_bad_lines": read.on_bad_lines,
        "messages": summary.messages,
        "decisions": dict(sorted(summary.decisions.items())),
        "skipped_lines": len(summary.skipped_lines),
    }


def model_evaluation(metadata: dict) -> dict | None:
    """The residual and over-masking a model file records from its own evaluation (cross-validated
    at training), or recorded beside the embedded model; None when there is none."""
    from triage.model import recorded_evaluation

    found = metadata.get("evaluation") or metadata.get("field") or recorded_evaluation(metadata)
    if not isinstance(found, dict):
        return None
    keys = ("residual_span_rate", "message_leak_rate", "over_masking_rate", "person_precision", "expert_share",
            "budget", "how", "gold")
    kept = {k: found[k] for k in keys if k in found}
    return kept or None


class InputCheck:
    """What `classify --workspace` needs of its input, checked on the run's first read of it
    (run_classify's `check_input`), before anything is written: unique ids (the workspace keys
    decisions by id), and, when the workspace (`opened`) already holds a corpus, that this input
    is that corpus (another corpus's messages would replace its list and audit sample). `add`
    sees each chunk of (id, text) pairs, `finish` refuses, repeated ids first; only a refusal of
    repeated ids reads the input again, to name their lines."""

    def __init__(self, input_path, read: ReadOptions, opened):
        self.input_path, self.read, self.opened = input_path, read, opened
        # Each id and text as a 64-bit hash (Python's, of the string) in numpy columns: 8 bytes a message,
        # where the strings themselves, in a set or by id, take tens of megabytes at 10^6 messages.
        self.id_hashes: list[np.ndarray] = []
        self.stored = opened.stored_messages()
        self.same = 0

    def digest(self, pairs: list[tuple[str, str]]) -> tuple[np.ndarray, np.ndarray | None]:
        """What `add` keeps of a chunk of pairs: the hashes of its ids, and of its texts when the
        workspace holds a corpus. Worked out where the chunk is read: with --jobs, by the input's
        reader (a process forked from this one, whose hashes are this one's)."""
        ids = string_hashes(map(operator.itemgetter(0), pairs), len(pairs))
        return ids, string_hashes(map(operator.itemgetter(1), pairs), len(pairs)) if len(self.stored) else None

    def add(self, pairs) -> None:
        """A chunk of (id, text) pairs seen, or a chunk the input's reader read (PickledPairs),
        with its digest."""
        ids, texts = pairs.digest if isinstance(pairs, engines.PickledPairs) else self.digest(pairs)
        self.id_hashes.append(ids)
        if texts is not None:
            self.same += self.stored.found(ids, texts)

    def finish(self) -> None:
        display = source_name(self.input_path)
        hashes = np.concatenate(self.id_hashes) if self.id_hashes else np.zeros(0, np.int64)
        if len(np.unique(hashes)) < len(hashes):  # an id repeated (or two ids of one hash): read again to tell
            seen = RepeatedIds()
            for message in self.read.open(self.input_path):
                seen.add(message)
            if seen.repeated:
                ident, lines = next(iter(seen.repeated.items()))
                others = f" ({len(seen.repeated):,} repeated ids in total)" if len(seen.repeated) > 1 else ""
                raise BadInput(f"{display}: id {ident!r} appears on lines {', '.join(map(str, lines))}{others}; a "
                               "review workspace needs unique ids (see --id-column); nothing was written")
        if len(self.stored):
            self.opened.refuse_other_corpus(self.same, len(self.stored), display)


def prepare_classify_workspace(workspace, known_names=None, *, files=(), say=None, names_option: str = "--known-names"):
    """The workspace job of `classify --workspace` before any work: the workspace's path checked
    (never one of the `files` the command reads or writes), and (the known names classify hides,
    the team's own), as workspace_names gives them. (The input is checked against the workspace
    on the run's first read of it: InputCheck.)"""
    from triage.review_workspace import check_workspace_path

    check_workspace_path(workspace, files)
    return workspace_names(workspace, known_names, say=say, option=names_option)


def sync_classify_workspace(loaded, classified, record: dict, *, model=None, model_file=None, own_names=None,
                            input_path=None, id_column: str = "", text_column: str = "text") -> list[str]:
    """The workspace job of `classify --workspace`, once the messages are classified: the review
    workspace brought up to date with the rows its staging took as they were made (`loaded`: the
    (workspace, staging) of review_workspace.loading; `classified` names the output: its path, or
    a name for rows kept in memory), with the model (`model`, as run_classify took it;
    `model_file` as the workspace records it), the known names the team gave (`own_names`, kept
    for a later classify) and `record` (classify_record: the settings the release reads). The
    lines saying what changed."""
    from triage import review_workspace as review_module

    opened, staged = loaded
    where = os.path.abspath(classified) if isinstance(classified, os.PathLike) else str(classified)
    synced = opened.load(staged, where, input_path=input_path, id_column=id_column, text_column=text_column,
                         model_file=model_file)
    opened.record_model(model)
    if own_names is not None:  # hidden again by a later classify --workspace without known names
        opened.keep_known_names(own_names)
    opened.record_classify(record)
    return review_module.sync_lines(opened.path, synced)


def classify_with_workspace(source, output, workspace, *, read: ReadOptions, known_names=None, command: str = "",
                            id_column: str = "", say=None, display: str | None = None, model_file=None,
                            names_option: str = "--known-names", **options) -> tuple[ClassifySummary, list[str]]:
    """`classify --workspace` (and the Python API's `classify(workspace=...)`): the workspace
    checked and its taught names read (prepare_classify_workspace; `names_option` is how the
    caller replaces the known names), the corpus classified (run_classify with `options`), the
    input checked against the workspace on its first read and the rows handed to the workspace
    as they are made, then the workspace brought up to date (sync_classify_workspace;
    `id_column` as the workspace records it: "" when none was given). `source` is the input file,
    or records read already; `output` the classified file, or None for rows kept in memory that
    `display` names; `model_file` is the model as the workspace records it (by default its path).
    (the summary, the lines saying what changed in the workspace)."""
    from triage import review_workspace as review_module

    input_path = source if isinstance(source, (str, os.PathLike)) else None
    written = [Path(output)] if output is not None else []
    files = [path for path in (input_path, *written) if path is not None]
    known_names, own_names = prepare_classify_workspace(workspace, known_names, files=files, say=say,
                                                        names_option=names_option)
    name = source_name(output) if output is not None else display
    with review_module.loading(workspace, name, files) as loaded:
        summary = run_classify(source, output, read=read, known_names=known_names, staged=loaded[1],
                               check_input=InputCheck(source, read, loaded[0]), **options)
        model_path = options.get("model_path")
        record = classify_record(summary, command=command, model_path=model_path,
                                 calibrated=options.get("calibrated", False), read=read, input_path=input_path)
        lines = sync_classify_workspace(loaded, written[0] if written else name, record, model=model_path,
                                        model_file=(model_path or "") if model_file is None else model_file,
                                        own_names=own_names, input_path=input_path, id_column=id_column,
                                        text_column=read.text_column)
    return summary, lines


#: The review loop's rounds (`evaluate --simulate-review`): each one scores the whole gold again.
MAX_SIMULATED_ROUNDS = 100


def workspace_names(workspace, known_names=None, say=None, option: str = "--known-names"):
    """(the known names classify --workspace hides, the team's own): the known names
    (`known_names`, as run_classify takes them; when None, those an earlier classify was given,
    kept in the workspace, and `say` is told so in one line, naming `option` as the way to replace
    them) with those the reviewers of an existing
    review workspace have taught (triage.review_workspace.Workspace.taught_names), hidden with their
    variants, so that a reviewer's decisions re-score the messages still to be read."""
    from triage.review_workspace import Workspace
    from triage.seekhide.known import merged, taught_names

    path = Path(workspace)
    known = known_names_of(known_names)
    if not path.exists() or not path.stat().st_size:
        return known, known
    with Workspace.open(path) as opened:
        taught = taught_names(opened.taught_names(), "the review workspace")
        if taught is not None and say is not None:
            say(f"taught names: the {taught.count:,} names the reviewers marked or learnt are hidden with their "
                "variants in every message (`triage review --learnt` lists them, with the messages each reaches)")
        if known is None:
            known = opened.kept_known_names()
            if known is not None and say is not None:
                source = f" from {known.source}" if known.source else ""
                say(f"known names: the {known.count:,} names{source} an earlier classify was given are hidden "
                    f"again (the review workspace keeps them; give {option} to replace them)")
    return merged(known, taught), known


# A corpus up to this size is read once: its pairs (about 250 bytes each) are kept from the
# statistics pass for the classifying pass. A larger corpus is read twice, in bounded memory.
KEEP_READ_MESSAGES = 300_000

# How many messages classify takes at a time: one process, a batch of BATCH_MESSAGES (fewer batches,
# less of the steps' fixed cost a batch); with --jobs or Dask, a chunk of CHUNK_MESSAGES (work for
# every worker sooner). Either holds at most about BATCH_CHARACTERS characters of text: a corpus of
# long messages comes in shorter batches, faster and in less memory. Tuned on benchmarks/corpus.py's
# generated corpora (73 characters a message; benchmarks/README.md, "How the hot path works"): 10^6
# messages in 42.1 s against 45.0 s with batches of 5,000, peak 448 against 426 MB; 150,000 messages
# of long new spellings (about 2,300 a batch) in 23.4 s against 25.7 s, 340 against 370 MB.
BATCH_MESSAGES = 10_000
CHUNK_MESSAGES = 5_000
BATCH_CHARACTERS = 1_000_000


# With --jobs, the chunks of the statistics pass given to the workers at once, per worker: enough
# for them to count while this process reads (and, before a local Dask cluster, learns the first
# chunk's spellings: `meanwhile`).
STATS_IN_FLIGHT = 16


def corpus_stats(table: MessageTable, size: int, predictor, jobs: int = 1, observe=None, meanwhile=None,
                 session=None, share: bool = False, characters: int | None = None, pool=None,
                 batch: tuple[int, int] | None = None, reader=None):
    """The first pass: how the corpus itself writes each word (triage.model.names.CorpusStats,
    read by `predictor`'s word scorer: Predictor.corpus_stats), counted in `jobs` processes, and
    the chunks of pairs for the second pass (kept if the corpus is small, else read again): of `size`
    pairs, and at most about `characters` characters of text (MessageTable.pairs). Counted in this
    process, a kept chunk keeps its texts as this pass folded and cut them
    (triage.classifier.FoldedPairs): the second pass does not fold and cut them again.
    `observe(chunk)` sees each chunk of (id, text) pairs of this pass (the checks of classify
    --workspace: InputCheck). With `jobs` > 1, `meanwhile(chunk)` is run on the first chunk in this
    process while the workers count the first ones (Classifier.learn). With a `session`
    (triage.engines.DaskSession), the Dask workers count. With `share`, the chunks kept are left
    in memory for the workers of a fork pool started afterwards (engines.share_by_fork), those
    after the first and before the last 2 * `jobs` joined two by two where the two hold at most
    `batch` (a number of messages and of characters), each then classified as one batch
    (_two_by_two). With a
    `pool` (triage.engines.KeepingPool), its workers count, and keep the chunks kept: these are
    given back as KeptChunks, which its workers classify; with a `reader` (triage.engines.ReadAhead),
    its workers count the chunks it read, and `observe` sees them as the reader read them
    (PickledPairs, with the reader's digest of them)."""
    from triage.model.names import forget_letter_runs
    from triage.text.normalise import fold_batch
    from triage.pipeline.memory import LOW_WATER, VOCABULARY
    from triage.text.stretches import STRETCH_IDS, StretchTranslation

    kept: list | None = []
    kept_messages = 0

    def keep(chunk) -> None:
        nonlocal kept, kept_messages
        if kept is not None:
            kept.append(chunk)
            kept_messages += len(chunk)
            if kept_messages > KEEP_READ_MESSAGES:
                kept = None

    def chunks():
        for chunk in table.pairs(size, characters):
            if observe is not None:
                observe(chunk)
            yield chunk

    stats = predictor.corpus_stats()
    first: list = []

    def texts():
        for chunk in chunks():
            keep(chunk)
            if not first:
                first.append(chunk)
            yield [text for _, text in chunk]

    if session is not None:
        for counted in session.count(texts()):
            stats.merge(counted)
    elif pool is not None:
        def asked():
            for chunk in engines.even_tail(chunks(), jobs) if reader is None else reader.chunks():
                if reader is not None and observe is not None:  # (the reader's, and those read here after it)
                    observe(chunk)
                keeping = kept is not None
                if keeping:  # its worker keeps its texts, this process its ids
                    keep(engines.KeptChunk(chunk, len(kept)))
                if keeping and kept is None:  # the corpus is read again: the workers let go of what they keep
                    pool.forget_kept()
                yield chunk, kept is not None

        for counted in pool.count(asked(), STATS_IN_FLIGHT * jobs):
            stats.merge(counted)
        if kept is None:
            return stats, engines.even_tail(table.pairs(size, characters), jobs)
        return stats, _handed_over(kept)
    elif jobs > 1:
        # Before a local Dask cluster: the workers fold and cut the texts they count, and send the
        # folded texts and the stretch ids back with the counts: this process reads the ids as its own
        # (StretchTranslation), so that the chunks it keeps go to the cluster's workers, forked
        # afterwards, folded and cut.
        now = (lambda: meanwhile(first[0])) if meanwhile is not None else None
        translation = StretchTranslation()
        asked = ((chunk_texts, kept is not None) for chunk_texts in texts())  # (a chunk not kept is read again)
        for at, (counted, changed, maps, local) in enumerate(engines.fork_map(
                _count_and_cut, asked, jobs, in_flight=STATS_IN_FLIGHT * jobs, meanwhile=now)):
            stats.merge(counted)
            # Read as this process's while the corpus is kept and its stretches take at most what the
            # memory budget keeps when it is spent (else they are emptied below, as in one process).
            if translation is not None and (local is None or kept is None or VOCABULARY.used_by("stretches")
                                            > VOCABULARY.limit * LOW_WATER):
                translation = None
            stretched = translation.translate(local) if translation is not None else None
            if stretched is not None:
                kept[at] = FoldedPairs.with_changed(kept[at], changed, maps, stretched)
    else:
        for chunk in chunks():
            folded, maps = fold_batch([text for _, text in chunk])
            keep(FoldedPairs(chunk, folded, maps, stats.add_folded(folded)))
    # The stretch ids serve the kept chunks while they take at most what the memory budget keeps
    # when it is spent (a corpus of long new spellings would otherwise start classifying with its
    # budget nearly spent); the corpus read again, they serve no chunk.
    cleared = session is None and (kept is None or VOCABULARY.used_by("stretches") > VOCABULARY.limit * LOW_WATER)
    if cleared:
        STRETCH_IDS.clear()
    forget_letter_runs()  # counted: the memory goes to classifying
    if kept is None:
        return stats, table.pairs(size, characters)
    if share:
        if batch is not None:
            kept = _two_by_two(kept, batch, 2 * jobs)
        engines.share_by_fork(kept)
    # While the kept chunks are classified, their stretch ids are worth more than the table of
    # spellings: emptied after it when the memory budget is passed (triage.pipeline.memory.HELD_AFTER).
    return stats, _handed_over(kept, held=() if cleared or session is not None else ("stretches",))


def _two_by_two(chunks: list, batch: tuple[int, int], tail: int) -> list:
    """The chunks, those after the first (which the main process may have learnt: Classifier.learn)
    and before the last `tail` (work for every worker to the end) joined two by two where the two
    hold at most `batch` (a number of messages and of characters) and are alike: folded and cut
    (FoldedPairs.joined), or plain lists of pairs."""
    joined, at = chunks[:1], 1
    while at + 2 <= len(chunks) - tail:
        pair = chunks[at:at + 2]
        if type(pair[0]) is type(pair[1]) and fit_in_batch(pair, batch):
            joined.append(FoldedPairs.joined(pair) if isinstance(pair[0], FoldedPairs) else pair[0] + pair[1])
            at += 2
        else:
            joined.append(chunks[at])
            at += 1
    return joined + chunks[at:]


def _count_and_cut(asked: tuple[list[str], bool]):
    """In a worker of the statistics pass, of (texts, whether the parent keeps them): the corpus
    statistics of the texts (CorpusStats), with, for texts the parent keeps for classifying, the
    texts folded (those that differ from the texts, by index), their folding maps and their
    stretch ids (LocalStretched); else ({}, {}, None)."""
    from triage.model.names import CorpusStats
    from triage.text.normalise import fold_batch
    from triage.text.stretches import cut_for_another

    texts, kept = asked
    stats = CorpusStats()
    folded, maps = fold_batch(texts)
    if not kept:
        stats.add_folded(folded)
        return stats, {}, {}, None
    local = cut_for_another(lambda: stats.add_folded(folded))
    return stats, {index: folded[index] for index in maps}, maps, local


def _handed_over(chunks: list, held: tuple[str, ...] = ()) -> Iterator:
    """The chunks in order, each let go of once given (the memory of a classified chunk is
    free for the caches of the next ones), the kinds of caches `held` in the memory budget
    (Budget.hold) from the first chunk given until the last is classified."""
    from triage.pipeline.memory import VOCABULARY

    chunks.reverse()
    size = len(chunks)
    for kind in held:
        VOCABULARY.hold(kind, lambda: (size - len(chunks), len(chunks)))
    try:
        while chunks:
            yield chunks.pop()
    finally:
        for kind in held:
            VOCABULARY.release(kind)


def _observed(chunks, observe):
    """The chunks, passed on unchanged, each seen by `observe` first."""
    for chunk in chunks:
        observe(chunk)
        yield chunk


def _hashing_ids(chunks, id_hashes: list):
    """The chunks, passed on unchanged, with a 64-bit hash of each id appended to `id_hashes`
    (a chunk a worker keeps holds its ids alone: engines.KeptChunk)."""
    for chunk in chunks:
        ids = chunk.ids if isinstance(chunk, engines.KeptChunk) else map(operator.itemgetter(0), chunk)
        id_hashes.append(string_hashes(ids, len(chunk)))
        yield chunk


def model_line(model_path, metadata: dict, policy: str | None, budget: combiner.ExpertBudget) -> str:
    """The model, its policy (and budget) and a short fingerprint of its settings."""
    name = policy or (metadata.get("policy") or {}).get("name", "paper")
    how = f"policy {name}" + (f", expert budget {budget.asked()}" if name == "budget" else "")
    which = "embedded model" if model_path is None else getattr(model_path, "name", str(model_path))
    size = metadata.get("training_size")
    trained = f"trained on {size:,} messages; " if isinstance(size, int) else ""
    return f"{which} ({how}; {trained}fingerprint {str(metadata.get('metadata_sha256', ''))[:12]})"


def _chart_counts(decisions: Counter, seekhide: Counter) -> dict:
    """What the chart shows of a run's counts (its summary's): messages per decision, and the
    expert's workload against the alternatives."""
    return {"decisions": dict(decisions), "expert": decisions.get(EXPERT, 0),
            "untagged": seekhide.get("UNTAGGED", 0), "messages": sum(decisions.values())}


def _decision_chart(counts: dict) -> bytes:
    """Bar chart (PNG) of _chart_counts: messages per decision, and the expert's workload against
    the alternatives (drawn with Pillow: triage/io/barchart.py)."""
    from triage.io import barchart

    names = list(DECISIONS)
    workloads = {
        "sms-triage": counts["expert"],
        "Seek&Hide alone\n(untagged)": counts["untagged"],
        "read everything": counts["messages"],
    }
    return barchart.png([
        barchart.Bars("Decisions", names, [counts["decisions"].get(n, 0) for n in names],
                      ["#c0392b", "#27ae60", "#f39c12"], axis="messages"),
        barchart.Bars("Messages a human must read", list(workloads), list(workloads.values()),
                      ["#f39c12", "#7f8c8d", "#bdc3c7"], horizontal=True),
    ])


# ---------------------------------------------------------------------- train


@dataclass
class TrainSummary:
    output: Path | None
    metadata: dict
    model: model.Model | None = None  # with no output file: the model, in memory

    def lines(self) -> list[str]:
        """What was trained, and how the expert's messages will be chosen."""
        meta = self.metadata
        counts = meta["class_counts"]
        out = [f"{meta['kind']} model on {meta['training_size']:,} messages ({counts['TA']:,} TA, "
               f"{counts['NTA']:,} NTA), features {meta['feature_set']}" + (f" -> {self.output}" if self.output else "")]
        kept = meta.get("word_scorer")
        if kept:
            out.append(f"no gold spans: kept the word scorer of the {kept['source']} (learnt from gold spans of "
                       f"{kept['training_size']:,} messages, fingerprint {kept['fingerprint']}) and calibrated the "
                       f"expert budget on these messages (cross-validated risks)")
        elif meta.get("word_features"):
            out.append("word scorer learnt from the gold spans; expert budget calibrated on these messages "
                       "(cross-validated risks)")
        else:
            out.append("no word scorer (normalised counts): classify uses the paper's policy (Table 2)")
        prior = meta.get("corpus_prior")
        if prior:
            out.append(f"the word scorer keeps how its {prior['messages']:,} training messages write {prior['words']:,} "
                       "words of the shipped word lists (counts only: no other spelling, no text), for corpora "
                       "smaller than that")
        letters = meta.get("letters")
        if letters and not kept:
            out.append(f"its letter model keeps {letters['n_grams']:,} letter sequences of 2 to 4 letters, each met in at "
                       "least two different words (as numbers: no word whole)")
        return out


def run_train(
    input_path: Path | Records,
    output: Path | None,
    *,
    kind: str = "bagging",
    feature_set: str = "rich",
    normalise: bool = False,
    seed: int = 0,
    read: ReadOptions | None = None,
    force: bool = False,
    keep_scorer: bool = False,
) -> TrainSummary:
    """A model file from a labelled file: the message model, and the word scorer with the
    budget calibration when the file has gold spans (triage.model.training), unless `keep_scorer`:
    then the embedded model's word scorer is kept, as from labels alone. With no `output`, the
    model is kept in the summary (the Python API)."""
    from triage.model import training

    training.check_kind(kind)
    training.check_feature_set(feature_set)
    if output is not None:
        outputs.check_output(output, force=force, inputs=[input_path])
    gold, has_spans = labelled_gold(input_path, read or ReadOptions())
    counts = model.check_training_labels([m.label for m in gold])
    fitted, extras = training.train(gold, has_spans and not keep_scorer, kind=kind, feature_set=feature_set,
                                    normalise=normalise, seed=seed)
    data, metadata = model.model_bytes(fitted, training_size=len(gold), class_counts=counts, seed=seed, **extras)
    if output is None:
        return TrainSummary(None, metadata, model.Model(data))
    outputs.write_bytes(Path(output), data, force=force, private=False, protect=[input_path])
    return TrainSummary(Path(output), metadata)


# ---------------------------------------------------------------------- evaluate


@dataclass
class EvaluationReport:
    data: dict
    markdown: str
    files: list
    figure: object = None  # the budget curve, a matplotlib Figure


def _evaluation_inputs(paths, names, read, several, asked, model_path, cross_validation, folds):
    """The gold files read and checked, the model classify uses loaded as classify loads it, and
    every gold message (evaluate's first step, under its bar)."""
    from triage.model import check_folds, check_training_labels, default_model_path, load_predictor

    golds = []
    for number, (path, name) in enumerate(zip(paths, names), 1):
        gold, has_spans = labelled_gold(path, read)
        if not gold:
            raise BadInput(f"{name} holds no messages to evaluate (only a header)")
        if not has_spans:
            raise BadInput(f"{name} has no {read.spans_column!r} column: evaluate needs the gold spans to hide "
                           "(--spans-column names it)")
        if several:
            if not all(m.group for m in gold):
                raise BadInput(f"{name} names no donor for some messages (a donor column): several gold files are "
                               "cross-validated grouped by donor")
            for m in gold:  # two files never share a donor
                m.group = f"{number}:{m.group}"
        golds.append(gold)
    # The model classify uses, loaded as classify loads it.
    predictor = load_predictor(model_path if isinstance(model_path, model.Model)
                               else Path(model_path) if model_path else default_model_path())
    everything = [m for gold in golds for m in gold]
    if cross_validation:
        try:
            check_folds(folds, check_training_labels([m.label for m in everything]), " and ".join(names))
        except (BadInput, BadOption) as err:  # the gold cannot train a model: say how to measure the used one alone
            raise type(err)(f"{err}; to measure the model classify uses alone: --no-cross-validation") from None
    return golds, predictor, everything


def run_evaluate(gold_path, out_dir, *, model_path=None, policy: str = "budget", budget: float = 0.10,
                 hide: str | tuple[str, ...] = "default", folds: int = 5, seed: int = 0, feature_set: str = "rich",
                 ablation: bool = False, cross_validation: bool = True, read=None, known_names=None, force: bool = False,
                 progress: bool = False, simulate_review: int = 0, seeds: int = 1,
                 labelled: int | None = None) -> EvaluationReport:
    """Score the pipeline against gold spans with the model classify uses (`model_path`, by
    default the embedded model): the main figures. With `cross_validation`, also those of a
    model trained on the gold itself, cross-validated (`cross_validated`: what training a model
    of one's own could bring), with `seeds` seeds (the main figures' mean and standard deviation
    over them). With `ablation`, also each Seek&Hide step switched off in turn.
    `gold_path` may be a list of gold files: they are cross-validated together (grouped by donor,
    the donors of two files never the same), and every figure is given per file (under `files`),
    the expert budget read in each file.
    evaluate.md, .json and .png in `out_dir` (checked before any work: never over an input,
    never over a file without `force`), or no file when `out_dir` is None (the Python API).
    `progress`: a bar on stderr. `known_names` (as run_classify's) are hidden with their variants,
    as classify --known-names hides them. With `simulate_review` rounds, also the review loop
    with a perfect reviewer (triage.model.evaluation.simulate_review), with the model classify uses."""
    from triage.model import default_model_path, evaluation, training
    from triage.model.reports.render import report_paths, write_report
    from triage.pipeline.progress import steps
    from triage.seekhide import steps as seekhide_steps

    paths = list(gold_path) if isinstance(gold_path, (list, tuple)) else [gold_path]
    if not paths:
        raise BadOption("evaluate needs a gold file")
    several = len(paths) > 1
    asked = combiner.check_budget(budget)
    combiner.check_policy(policy)
    hide = combiner.parse_hide(hide)
    known_names = known_names_of(known_names)
    if known_names is not None and ablation:
        raise BadOption("--ablation measures the shipped steps: leave --known-names out")
    if not isinstance(simulate_review, int) or simulate_review < 0:
        raise BadOption(f"--simulate-review takes a number of rounds (1 or more), not {simulate_review!r}")
    if simulate_review > MAX_SIMULATED_ROUNDS:
        raise BadOption(f"--simulate-review takes at most {MAX_SIMULATED_ROUNDS} rounds (each one scores the whole "
                        f"gold again), not {simulate_review:,}")
    if seeds < 1:
        raise BadOption(f"--seeds takes a number of seeds (1 or more), not {seeds}")
    if seeds > 1 and not cross_validation:
        raise BadOption("--seeds repeats the cross-validation: leave it out with --no-cross-validation")
    if labelled is not None and (isinstance(labelled, bool) or not isinstance(labelled, int) or labelled < 1):
        raise BadOption(f"--labelled takes a number of messages (1 or more), not {labelled!r}")
    if labelled is not None and not cross_validation:
        raise BadOption("--labelled trains beside the cross-validation, with its word scorer: leave out "
                        "--no-cross-validation")
    if several and ablation:
        raise BadOption("--ablation measures one gold file: give one file")
    if several and asked.share is None:
        raise BadOption("--expert-budget: give a share (0.1), not a count of messages, with several gold files: "
                        "the budget is read in each file")
    names = [source_name(path) for path in paths]
    repeated = next((n for i, n in enumerate(names) if n in names[:i]), None)
    if repeated is not None:
        raise BadInput(f"{repeated} is given twice")
    protect = [*paths, model.file_of(model_path)]
    training.check_feature_set(feature_set)
    if out_dir is not None:
        outputs.check_outputs([(path, force) for path in report_paths("evaluate", out_dir)], inputs=protect)
    read = read or ReadOptions()
    # The bar is up from the first second: reading the gold and loading the model are its first step.
    label = " and ".join(names)
    total = (2 + len(paths) + (folds * seeds + 1 if cross_validation else 0)
             + (len(seekhide_steps.switchable()) if ablation else 0) + simulate_review * len(paths))
    stack = contextlib.ExitStack()
    done = stack.enter_context(steps(f"evaluating {label}", total) if progress
                               else contextlib.nullcontext(lambda doing=None: None))
    try:
        golds, predictor, everything = _evaluation_inputs(
            paths, names, read, several, asked, model_path, cross_validation, folds)
    except BaseException:
        stack.close()
        raise
    # The curve is drawn over shares: a count of messages is the share of these messages it is.
    budget = asked.share if asked.share is not None else asked.messages(len(golds[0])) / len(golds[0])
    fingerprint = predictor.metadata.get("metadata_sha256")
    file = model.file_of(model_path)
    which = ("the embedded model" if model_path is None or (file and Path(file).resolve() == default_model_path())
             else f"the model {source_name(file)}" if file else "the model given")
    cross_validated_ablation = ablation and cross_validation
    done("analysing the gold")
    with stack:
        analysed = [training.analyse(gold, feature_set if cross_validation else predictor.feature_set,
                                     known=known_names) for gold in golds]
        labels = [np.asarray([m.label for m in gold]) for gold in golds]
        seeks = [tables([r.label for r in a.results], y) for a, y in zip(analysed, labels)]
        # Only the gold spans of the hidden categories are leaks when readable; hiding the others
        # is over-masking.
        scored = [evaluation.hidden_gold(a, hide) for a in analysed]
        crossed: list[dict | None] = [None] * len(golds)
        done("a model trained on the gold, cross-validated" if cross_validation else "the model classify uses")
        if cross_validation:
            grouped = len({m.group for m in everything}) >= folds
            runs: list[list[dict]] = [[] for _ in golds]
            labelled_runs: list[list[dict]] = [[] for _ in golds]
            for k in range(seeds):
                # The first seed as a single run draws its folds; each other one deals the donors at random.
                crossed_scores = training.cross_validated_scores_of(analysed, folds=folds, seed=seed + k,
                                                                   progress=done, shuffle=k > 0)
                evidence = [training.evidence_from(part, scores, probs, hide)
                            for part, (scores, probs) in zip(analysed, crossed_scores)]
                if labelled is not None:
                    for i, (part, (_, probs)) in enumerate(zip(analysed, crossed_scores)):
                        own = training.evidence_from(part, training.labels_only_scores(part, labelled, seed + k),
                                                     probs, hide)
                        labelled_runs[i].append(evaluation.main_figures(
                            scored[i].gold, scored[i].results, _decisions(own, policy, budget)))
                for i, (part, found) in enumerate(zip(scored, evidence)):
                    if k == 0:
                        crossed[i] = {
                            "how": f"a model trained on your gold{' files' if several else ''}, cross-validated "
                                   f"({folds}-fold cross-validation" + (" grouped by donor" if grouped else ", stratified")
                                   + (" over the files together" if several else "") + f", features {feature_set})",
                            "folds": folds,
                            "feature_set": feature_set,
                        }
                        crossed[i].update(_evaluated(part, found, labels[i], policy, budget, seed)[0])
                        runs[i].append(_seed_figures(crossed[i]))
                    else:
                        decisions = _decisions(found, policy, budget)
                        runs[i].append(evaluation.main_figures(part.gold, part.results, decisions))
            for i in range(len(golds)):
                crossed[i]["seeds"] = evaluation.seeds_summary(runs[i], [seed + k for k in range(seeds)])
                if labelled is not None:
                    drawn = min(labelled, len(golds[i]))
                    crossed[i]["labels_only"] = {
                        "labelled": drawn,
                        "how": "a model from labels alone on " + (
                            f"all {drawn:,} of these messages" if drawn == len(golds[i])
                            else f"{drawn:,} of these messages (drawn at random by each seed)")
                        + ", its word scorer the cross-validated one",
                        "seeds": evaluation.seeds_summary(labelled_runs[i], [seed + k for k in range(seeds)]),
                    }
            done("the model classify uses")
        parts = []
        for i, (gold, name) in enumerate(zip(golds, names)):
            # After the cross-validation: this reads the gold's words as the model's word scorer does.
            evidence = evaluation.evidence_from_model(analysed[i], predictor, hide)
            measured, message_model = _evaluated(scored[i], evidence, labels[i], policy, budget, seed)
            parts.append({
                "gold": name,
                **measured,
                "seekhide": {
                    "distribution": dict(seeks[i].distribution),
                    "confusion": {f"{s}/{g}": n for (s, g), n in (seeks[i].confusion or {}).items()},
                    "accuracy_on_tagged": seeks[i].accuracy,
                },
                "messages": len(gold),
                "cross_validated": crossed[i],
                "_message_model": message_model,
            })
            done(None if i + 1 < len(golds) else
                 "each step switched off in turn" if ablation else "the review loop" if simulate_review else None)
        common = {
            "how": f"the model classify uses: {which} (fingerprint {str(fingerprint)[:12]})",
            "policy": policy,
            "expert_budget": budget,
            "hide": list(hide),
            **({"known_names": known_names.record()} if known_names is not None else {}),
            # Which model was evaluated: a release's datasheet takes these figures for that model only.
            "model_fingerprint": fingerprint,
        }
        if ablation:
            data = parts[0]
            untagged = seeks[0].distribution.get("UNTAGGED", 0) / len(golds[0])
            full = crossed[0] if cross_validated_ablation else data
            data["ablation_of"] = "cross_validated" if cross_validated_ablation else "model"
            data["ablation"] = evaluation.ablation(
                golds[0], {**full["chosen"], "untagged_share": untagged},
                feature_set=feature_set if cross_validated_ablation else predictor.feature_set, policy=policy,
                budget=budget, folds=folds, seed=seed, predictor=None if cross_validated_ablation else predictor,
                hide=hide, progress=done)
        if simulate_review:
            for gold, part in zip(golds, parts):
                part["simulated_review"] = {
                    "rounds": simulate_review, "budget": budget, "policy": "budget",
                    "rows": evaluation.simulate_review(gold, predictor, budget=budget, rounds=simulate_review,
                                                       hide=hide, known=known_names, progress=done)}
    sections = [_file_markdown(part, seek, budget, simulate_review) for part, seek in zip(parts, seeks)]
    for part in parts:
        del part["_message_model"]
    if several:
        data = {"gold": names, **common, "messages": sum(len(gold) for gold in golds), "files": parts}
        markdown = evaluation.several_files_markdown(data, sections)
        figure = evaluation.files_figure(data)
    else:
        part = parts[0]
        data = {"gold": part["gold"], "how": common["how"], **{k: v for k, v in common.items() if k != "how"},
                **{k: v for k, v in part.items() if k != "gold"}}
        markdown = evaluation.end_to_end_markdown(data, sections[0]["seek"]) + sections[0]["review"]
        figure = evaluation.curve_figure(data)
    files = [] if out_dir is None else write_report("evaluate", out_dir, markdown, data, figure, force=force,
                                                    protect=protect)
    return EvaluationReport(data, markdown, files, figure)


def _file_markdown(part: dict, seek, budget: float, simulate_review: int) -> dict:
    """The Markdown of one gold file's Seek&Hide tables and review loop, beside its policies'."""
    from triage.model import evaluation
    from triage.model.reports.render import table6_markdown

    markdown = {"seek": seek.markdown() + "\nThe message model classify uses, in the layout of the paper's Table 6:\n\n"
                + table6_markdown(part["_message_model"]), "review": ""}
    if simulate_review:
        without = next(p for p in part["budget_curve"] if p["budget"] == budget)
        markdown["review"] = "\n".join(evaluation.simulated_review_markdown(part["simulated_review"]["rows"],
                                                                           without)) + "\n"
    return markdown


def _decisions(evidence, policy: str, budget: float):
    from triage.model import evaluation

    return evaluation.policies(evidence, [budget])["paper" if policy == "paper" else budget].decide(evidence)


def _seed_figures(part: dict) -> dict:
    """The main figures (triage.model.evaluation.SEED_FIGURES) of an evaluated model's chosen policy."""
    from triage.model.evaluation import SEED_FIGURES

    exposed = (part["field"]["overall"].get("identifiers_exposed") or {}).get("value")
    return {name: exposed if name == "identifiers_exposed" else part["chosen"][name] for name in SEED_FIGURES}


def _evaluated(scored, evidence, labels, policy: str, budget: float, seed: int) -> tuple[dict, object]:
    """The release measures of one model's evidence on the gold (the chosen policy, the paper's,
    the budget curve, the message model's scores and the field's measures), and the message
    model's scores (triage.model.reports.cv.ModelScores)."""
    from triage.model import evaluation
    from triage.model.reports.cv import scores as model_scores

    scores = np.asarray([e.score for e in evidence])
    curve = evaluation.policy_curve(scored, evidence, budgets=sorted(set(evaluation.BUDGETS) | {budget}))
    chosen = curve["paper"] if policy == "paper" else next(p for p in curve["budget"] if p["budget"] == budget)
    decisions = evaluation.policies(evidence, [budget])["paper" if policy == "paper" else budget].decide(evidence)
    message_model = model_scores("bagging", labels, np.where(scores >= 0.5, TA, NTA), scores)
    return {
        "chosen": chosen,
        "paper_policy": curve["paper"],
        "budget_curve": curve["budget"],
        "model": message_model.to_dict(),
        "field": evaluation.field_metrics(scored.gold, scored.results, decisions, seed=seed),
    }, message_model


# ---------------------------------------------------------------------- review: import, consistency


def import_queue_lines(classified, workspace, queue_file, *, reviewer: str | None = None, audit: int | None = None,
                       seed: int = 0, allow_release_of_hidden: bool = False) -> list[str]:
    """`triage review CLASSIFIED --import-queue FILE`: the workspace brought up to date with the
    classified file, then the filled queue file's decisions stored as `reviewer`'s (triage.queue.files.import_answers);
    the lines to print."""
    from triage import review_workspace as review_module
    from triage.queue.files import import_answers, read_decisions

    path = workspace or review_module.default_path(classified)
    review_module.check_workspace_path(path, [classified, queue_file])
    read_decisions(queue_file)  # a file that is no filled queue is refused before the workspace is touched
    opened, _ = review_module.open_synced(classified, path, audit=review_module.DEFAULT_AUDIT if audit is None else audit,
                                          seed=seed)
    with opened:
        s = import_answers(queue_file, opened, reviewer=reviewer or review_module.default_reviewer(),
                           allow_release_of_hidden=allow_release_of_hidden)
        name = source_name(queue_file)
        lines = [f"imported {s.imported:,} decisions of {s.reviewer} from {name} ({s.ta:,} TA, {s.nta:,} NTA; "
                 f"{s.unchanged:,} already so, {s.undecided:,} rows left undecided)"]
        return lines + review_module.report_lines(opened)[:2]


