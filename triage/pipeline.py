"""The jobs of the command line, from an input table to an output table.

CLI -> these functions -> Seek&Hide, features, model, combiner -> triage.io writers.
Each job reads its input through triage.io.open_messages (validated before anything is
written) and writes through triage.outputs.atomic_output (all or nothing, never clobbering).
"""

from __future__ import annotations

import functools
import itertools
import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from triage import io, outputs
from triage.seekhide import TITLES, SeekAndHide, SeekTables, hidden_json, tables

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


def fewer_collections(job):
    """Run `job` with the garbage collector's first threshold at 10,000 new containers instead
    of 700. A job creates millions of short-lived containers but almost no reference cycles,
    and every full collection re-scans all the tables the job has built: at the default
    threshold, collecting took about a tenth of classify's time."""

    @functools.wraps(job)
    def run(*args, **kwargs):
        import gc

        threshold = gc.get_threshold()
        gc.set_threshold(10_000, *threshold[1:])
        try:
            return job(*args, **kwargs)
        finally:
            gc.set_threshold(*threshold)

    return run


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


def seek_rows(table: io.MessageTable, seeker: SeekAndHide, labels: list[str], words: bool,
              chunk_size: int = 5_000) -> Iterator[dict]:
    import json

    from triage.normalise import hide_in_original, nfc_batch, words_in_original

    for chunk in table.pairs(chunk_size):
        composed, decomposed = nfc_batch([text for _, text in chunk])  # offsets stay the original's
        analysis = seeker.analyse(composed)
        hidden_spans, highlighted = analysis.hidden_spans(), analysis.highlighted()
        for i, (ident, text) in enumerate(chunk):
            label = analysis.message_label(i)
            labels.append(label)
            offsets = decomposed.get(i)
            if words:
                for word in analysis.result(i).words:
                    start, end = offsets.span(word.start, word.end) if offsets else (word.start, word.end)
                    yield {
                        "id": ident, "start": start, "end": end, "word": text[start:end],
                        "label": word.label, "rule": word.rule, "match": word.match,
                    }
                continue
            hidden = hidden_spans[i]
            if offsets:
                anonymised, hidden = hide_in_original(seeker.code_for, text, composed[i], hidden, offsets)
                highlighted[i] = words_in_original(highlighted[i], text, composed[i], offsets)
            else:
                anonymised = seeker.hide(text, hidden)
            yield {
                "id": ident,
                "text": text,
                "seekhide": label,
                "anonymised": anonymised,
                "hidden": hidden_json(hidden),
                "highlighted": json.dumps(highlighted[i], ensure_ascii=False),
            }


@fewer_collections
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
    # The default output under reports/ is the tool's own: a new run replaces it.
    force = force or output is None
    output = Path(output) if output else default_output(input_path, "words.csv" if words else "seek.csv")
    outputs.check_output(output, force=force, inputs=[input_path])
    table = read.open(input_path)
    has_gold = read.label_column in table.columns
    gold = gold_labels(table, read.label_column) if has_gold else None
    seeker = seeker or SeekAndHide(lexicons.default())
    labels: list[str] = []
    columns = WORD_COLUMNS if words else SEEK_COLUMNS
    with outputs.atomic_output(output, force=force, protect=[input_path]) as handle:
        writer = io.TableWriter(handle, columns, format=io.format_for(output))
        writer.write_many(seek_rows(table, seeker, labels, words))
    return SeekSummary(output, len(labels), tables(labels, gold), list(getattr(table, "skipped", [])))


# ---------------------------------------------------------------------- classify

CLASSIFY_COLUMNS = [
    "id", "text", "seekhide", "model", "score", "decision", "anonymised", "hidden", "highlighted", "risk",
]
_SEEKHIDE, _DECISION = CLASSIFY_COLUMNS.index("seekhide"), CLASSIFY_COLUMNS.index("decision")


@dataclass
class ClassifySummary:
    output: Path
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

    @property
    def expert(self) -> int:
        return self.decisions.get("EXPERT", 0)

    def lines(self) -> list[str]:
        n = self.messages or 1
        out = [f"{self.messages:,} messages -> {self.output}"]
        for decision in ("TA", "NTA", "EXPERT"):
            count = self.decisions.get(decision, 0)
            out.append(f"  {decision:<7}{count:>10,}  {100 * count / n:6.2f}%")
        untagged = self.seekhide.get("UNTAGGED", 0)
        out.append(
            f"expert workload: {self.expert:,} messages to read "
            f"(Seek&Hide alone: {untagged:,} untagged; reading everything: {self.messages:,})"
        )
        if self.model:
            out.append(f"model: {self.model}")
        if self.chart:
            out.append(f"chart: {self.chart}")
        if self.queue:
            out.append(f"expert queue: {self.queued:,} messages -> {self.queue}")
        return out


@dataclass
class ClassifiedChunk:
    """A chunk as an engine gives it back: its rows encoded in the output format (no header)
    and the counts of the summary. Encoding where the rows are made keeps the process that
    writes from becoming the bottleneck of --jobs."""

    text: str
    rows: int
    decisions: dict[str, int]
    seekhide: dict[str, int]


# A visible candidate word at least this likely to be a name is shown to the expert.
HIGHLIGHT_PROBABILITY = 0.2


class Classifier:
    """Seek&Hide + features + models + combiner on batches of messages (one per process)."""

    def __init__(self, predictor, policy: str | None = None, budget: float = 0.10, lexicons=None, stats=None,
                 output_format: str = "csv"):
        from triage import combiner
        from triage import lexicons as lexicon_module

        self.lexicons = lexicons or lexicon_module.default()
        self.seeker = SeekAndHide(self.lexicons)
        self.predictor = predictor
        trained = dict(predictor.metadata.get("policy") or {"name": "paper"})
        name = policy or trained.pop("name", "paper")
        trained.pop("name", None)
        if name == "budget":
            if predictor.word_forest is None:
                raise io.InputError("the budget policy needs a model trained with gold spans (a 'spans' column)")
            trained["risk_threshold"] = predictor.risk_threshold(budget)
        self.policy = combiner.get_policy(name, **trained)
        self.stats = stats
        self.output_format = output_format
        self._scores: dict[int, float] = {}
        self._scores_for = None

    def evidence(self, analysis, scores):
        """What the machines say about a batch of messages (candidate words scored at once)."""
        import numpy as np

        from triage.combiner import EvidenceBatch
        from triage.names import candidate_rows, candidate_tags
        from triage.seekhide import MESSAGE_LABELS

        seekhide = np.asarray(MESSAGE_LABELS, dtype=object)[analysis.labels]
        if self.predictor.word_forest is None:
            return EvidenceBatch(seekhide, scores, analysis.hidden_spans())
        tokens, X, keys = candidate_rows(analysis, self.stats, self.predictor.spelling)
        return EvidenceBatch(
            seekhide, scores, analysis.hidden_spans(), analysis.message[tokens], analysis.start[tokens],
            analysis.end[tokens], candidate_tags(analysis, tokens), self._word_probabilities(analysis, X, keys),
            analysis.hidden_mask()[tokens],
        )

    def _word_probabilities(self, analysis, X, keys):
        """The scorer's P(name) of each row. Candidate words recur in the same context (SMS
        are Zipfian): each distinct row is scored once per run, remembered by its key."""
        import numpy as np

        if self._scores_for is not analysis.spellings or len(self._scores) > 2_000_000:
            self._scores, self._scores_for = {}, analysis.spellings  # keys hold spelling ids
        distinct, first, inverse = np.unique(keys, return_index=True, return_inverse=True)
        known = self._scores
        probs = np.asarray([known.get(k, -1.0) for k in distinct.tolist()])
        unseen = np.flatnonzero(probs < 0)
        if len(unseen):
            probs[unseen] = self.predictor.word_forest.predict_proba(X[first[unseen]])
            known.update(zip(distinct[unseen].tolist(), probs[unseen].tolist()))
        return probs[inverse.ravel()]

    @staticmethod
    def highlighted(analysis, evidence, decisions) -> list[list[str]]:
        """Per message, the words a human should look at: Seek&Hide's ambiguous or unknown
        words, and the candidate words the name scorer found possibly name-like but left
        visible."""
        import numpy as np

        from triage.combiner import NTA

        words = analysis.highlighted()
        released = decisions.hides & (decisions.decision[evidence.message] != NTA)
        shown = np.flatnonzero((evidence.probability >= HIGHLIGHT_PROBABILITY) & ~released)
        texts = analysis.texts
        for m, start, end in zip(evidence.message[shown].tolist(), evidence.start[shown].tolist(),
                                 evidence.end[shown].tolist()):
            word = texts[m][start:end]
            if word not in words[m] and word.lower().rstrip(".") not in TITLES:
                words[m].append(word)
        return words

    def classify(self, messages: list[tuple[str, str]]) -> ClassifiedChunk:
        """The output rows of (id, text) pairs encoded in the output format, with the counts
        of the summary."""
        from collections import Counter

        columns = self.columns(messages)
        return ClassifiedChunk(io.encode_cells(list(zip(*columns)), CLASSIFY_COLUMNS, self.output_format), len(messages),
                               Counter(columns[_DECISION]), Counter(columns[_SEEKHIDE]))

    def rows(self, messages: list[tuple[str, str]]) -> list[list[str]]:
        """The output rows of (id, text) pairs: lists of cells in CLASSIFY_COLUMNS order."""
        return list(map(list, zip(*self.columns(messages))))

    def columns(self, messages: list[tuple[str, str]]) -> list[list[str]]:
        """The output cells of (id, text) pairs, column by column in CLASSIFY_COLUMNS order
        (built a column at a time: no Python step per message and cell)."""
        from json.encoder import encode_basestring  # json.dumps' own escaping, one string at a time

        import numpy as np

        from features.counts import message_counts

        from triage.normalise import hide_in_original, nfc_batch, words_in_original

        texts = [text for _, text in messages]
        composed, decomposed = nfc_batch(texts)  # analysed in NFC, offsets into the original
        analysis = self.seeker.analyse(composed)
        X = message_counts(analysis, self.predictor.feature_set, self.predictor.normalise)
        scores = self.predictor.predict_proba(X)
        evidence = self.evidence(analysis, scores)
        decisions = self.policy.decide_batch(evidence)
        highlighted = self.highlighted(analysis, evidence, decisions)
        for m, offsets in decomposed.items():
            highlighted[m] = words_in_original(highlighted[m], texts[m], composed[m], offsets)
        decision = decisions.decision.tolist()
        anonymised, hidden_cells = list(texts), ["[]"] * len(texts)
        for m in itertools.compress(range(len(texts)), decisions.hidden):
            if decision[m] != "NTA":
                spans = decisions.hidden[m]
                if m in decomposed:
                    anonymised[m], spans = hide_in_original(self.seeker.code_for, texts[m], composed[m], spans,
                                                            decomposed[m])
                else:
                    anonymised[m] = self.seeker.hide(texts[m], spans)
                hidden_cells[m] = hidden_json(spans)
        return [
            [ident for ident, _ in messages],
            texts,
            evidence.seekhide.tolist(),
            np.where(scores >= 0.5, "TA", "NTA").tolist(),
            list(map("{:.4f}".format, scores.tolist())),
            decision,
            anonymised,
            hidden_cells,
            ["[" + ", ".join(map(encode_basestring, words)) + "]" if words else "[]" for words in highlighted],
            list(map("{:.4f}".format, decisions.risk.tolist())),
        ]


@fewer_collections
def run_classify(
    input_path: Path,
    output: Path | None = None,
    *,
    model_path: Path | None = None,
    queue_path: Path | None = None,
    policy: str | None = None,
    budget: float = 0.10,
    read: ReadOptions | None = None,
    jobs: int = 1,
    engine: str = "local",
    scheduler: str | None = None,
    chunk_size: int = 5_000,
    force: bool = False,
    chart: bool = True,
    progress: bool = False,
) -> ClassifySummary:
    """Classify every message (the output contract: CLASSIFY_COLUMNS, one row per input row,
    same order), print-ready summary, bar chart, and optionally the expert's queue.
    `engine` says where the chunks are classified (triage.engines: this machine, or Dask)."""
    from collections import Counter

    import numpy as np

    from triage import engines, model

    if not 0.0 <= budget <= 1.0:
        raise io.InputError(f"the expert budget is a share of messages between 0 and 1, not {budget}")
    engines.check_engine(engine)
    read = read or ReadOptions()
    queue_force = force  # the queue may hold an expert's answers: replaced only when asked
    force = force or output is None  # the default output under reports/ is the tool's own
    output = Path(output) if output else default_output(input_path, "classified.csv")
    output_format = io.format_for(output)
    chart_path = output.with_suffix(".summary.png") if chart else None
    if queue_path is not None:
        from triage.queue import queue_format

        queue_format(queue_path, None)
    model_path = Path(model_path) if model_path else None
    # Every output refused now, not after classifying the whole corpus.
    outputs.check_outputs([(output, force), (chart_path, force), (queue_path, queue_force)],
                          inputs=[input_path, model_path])
    table = read.open(input_path)
    predictor = model.load_predictor(model_path or model.default_model_path())
    stats, chunks = None, None
    if predictor.word_forest is not None:
        stats, chunks = corpus_stats(table, chunk_size, predictor.metadata.get("training_size"),
                                     jobs=jobs if engine == "local" else 1)
    spec = None
    if engine == "dask":  # workers build their own classifier; this process only reads and writes
        classifier = None
        spec = engines.ClassifierSpec(model_path or model.default_model_path(), policy, budget, stats,
                                      output_format=output_format)
    else:
        classifier = Classifier(predictor, policy, budget, stats=stats, output_format=output_format)
        if jobs > 1:  # built once here, shared by the workers forked below, not once in each
            classifier.lexicons.build_sets()
    decisions: Counter = Counter()
    seekhide: Counter = Counter()
    # Repeated ids are allowed here but `queue export` refuses them: count them to warn. A
    # 64-bit hash per row keeps memory at 8 bytes a row (the chance of a false alarm is a
    # few in a million for 10**7 rows).
    id_hashes: list = []
    protect = [input_path] + ([model_path] if model_path else [])
    with outputs.atomic_output(output, force=force, protect=protect) as handle:
        writer = io.TableWriter(handle, CLASSIFY_COLUMNS, format=output_format)
        chunks = chunks or table.pairs(chunk_size)
        if progress:
            chunks = _with_progress(chunks, input_path)
        if table.id_column is not None:
            chunks = _hashing_ids(chunks, id_hashes)
        for done in engines.run_chunks(classifier, chunks, engine=engine, jobs=jobs, spec=spec, scheduler=scheduler):
            decisions.update(done.decisions)
            seekhide.update(done.seekhide)
            writer.write_encoded(done.text, done.rows)
    summary = ClassifySummary(output, sum(decisions.values()), dict(decisions), dict(seekhide))
    summary.model = model_line(model_path, predictor.metadata, policy, budget)
    summary.skipped_lines = list(table.skipped)
    if id_hashes:
        _, counts = np.unique(np.concatenate(id_hashes), return_counts=True)
        summary.repeated_ids, summary.repeated_rows = int((counts > 1).sum()), int((counts - 1).sum())
    if chart_path is not None:
        summary.chart = outputs.write_bytes(chart_path, _decision_chart(summary), force=force,
                                            protect=[input_path, model_path])
    if queue_path:
        from triage.queue import export_queue

        queued = export_queue(output, queue_path, force=queue_force, protect=[input_path, model_path])
        summary.queue, summary.queued = Path(queue_path), queued.queued
    return summary


# A corpus up to this size is read once: its pairs (about 250 bytes each) are kept from the
# statistics pass for the classifying pass. A larger corpus is read twice, in bounded memory.
KEEP_READ_MESSAGES = 300_000


def corpus_stats(table: io.MessageTable, size: int, reference: int | None, jobs: int = 1):
    """The first pass: how the corpus itself writes each word (triage.names.CorpusStats),
    counted in `jobs` processes, and the chunks of pairs for the second pass (kept if the
    corpus is small, else read again)."""
    from triage import engines
    from triage.names import CorpusStats

    kept: list | None = []

    def texts():
        nonlocal kept
        for chunk in table.pairs(size):
            if kept is not None:
                kept.append(chunk)
                if len(kept) * size > KEEP_READ_MESSAGES:
                    kept = None
            yield [text for _, text in chunk]

    stats = CorpusStats(reference=reference)
    if jobs > 1:
        for counted in engines.fork_map(CorpusStats.from_texts, texts(), jobs):
            stats.merge(counted)
    else:
        for chunk in texts():
            stats.add(chunk)
    return stats, iter(kept) if kept is not None else table.pairs(size)


def _hashing_ids(chunks, id_hashes: list):
    """The chunks, passed on unchanged, with a 64-bit hash of each id appended to `id_hashes`."""
    import numpy as np

    for chunk in chunks:
        id_hashes.append(np.fromiter((hash(ident) for ident, _ in chunk), dtype=np.int64, count=len(chunk)))
        yield chunk


def _with_progress(chunks, input_path):
    from rich.console import Console
    from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

    columns = (TextColumn("[progress.description]{task.description}"), BarColumn(),
               TextColumn("{task.completed:,} messages"), TimeElapsedColumn())
    with Progress(*columns, transient=True, console=Console(stderr=True)) as bar:
        task = bar.add_task(f"classifying {Path(input_path).name}", total=None)
        for chunk in chunks:
            yield chunk
            bar.update(task, advance=len(chunk))


def model_line(model_path: Path | None, metadata: dict, policy: str | None, budget: float) -> str:
    """The model, its policy (and budget) and a short fingerprint of its settings."""
    name = policy or (metadata.get("policy") or {}).get("name", "paper")
    how = f"policy {name}" + (f", expert budget {budget:.0%}" if name == "budget" else "")
    which = "embedded model" if model_path is None else str(model_path)
    size = metadata.get("training_size")
    trained = f"trained on {size:,} messages; " if isinstance(size, int) else ""
    return f"{which} ({how}; {trained}fingerprint {str(metadata.get('metadata_sha256', ''))[:12]})"


def _decision_chart(summary: ClassifySummary) -> bytes:
    """Bar chart (PNG): messages per decision, and the expert's workload against the alternatives."""
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib.figure import Figure

    figure = Figure(figsize=(8, 3.2), layout="constrained")
    left, right = figure.subplots(1, 2)
    names = ["TA", "NTA", "EXPERT"]
    left.bar(names, [summary.decisions.get(n, 0) for n in names], color=["#c0392b", "#27ae60", "#f39c12"])
    left.set_title("Decisions")
    left.set_ylabel("messages")
    workloads = {
        "sms-triage": summary.expert,
        "Seek&Hide alone\n(untagged)": summary.seekhide.get("UNTAGGED", 0),
        "read everything": summary.messages,
    }
    right.barh(list(workloads), list(workloads.values()), color=["#f39c12", "#7f8c8d", "#bdc3c7"])
    right.set_title("Messages a human must read")
    right.invert_yaxis()
    return outputs.figure_png(figure, dpi=110)


# ---------------------------------------------------------------------- train


@dataclass
class TrainSummary:
    output: Path
    metadata: dict


def labelled_texts(input_path: Path, read: ReadOptions) -> tuple[list[str], list[str]]:
    """(texts, TA/NTA labels) of a labelled file; spans, if any, are not read."""
    gold, _ = labelled_gold(input_path, read, with_spans=False)
    return [m.text for m in gold], [m.label for m in gold]


def labelled_gold(input_path: Path, read: ReadOptions, with_spans: bool = True):
    """(gold messages, whether spans were read): text, label, spans when a `spans` column
    exists and `with_spans`, donor as the cross-validation group."""
    from triage.evaluate import GoldMessage, parse_spans

    table = read.open(input_path, require_label=True)
    has_spans = with_spans and "spans" in table.columns
    messages, raw = [], []
    for message in table:
        raw.append((message.line, message.fields.get(read.label_column, "")))
        spans = parse_spans(message.fields.get("spans", ""), message.line, message.text) if has_spans else []
        messages.append(GoldMessage(message.text, "", spans, message.fields.get("donor", "")))
    for message, label in zip(messages, io.parse_labels(raw)):
        message.label = label
    return messages, has_spans


def run_train(
    input_path: Path,
    output: Path,
    *,
    kind: str = "bagging",
    feature_set: str = "rich",
    normalise: bool = False,
    seed: int = 0,
    read: ReadOptions | None = None,
    force: bool = False,
) -> TrainSummary:
    from triage import model

    if kind == "baseline":
        raise io.InputError("the baseline is for reports only; train a tree or bagging model")
    outputs.check_output(output, force=force, inputs=[input_path])
    read = read or ReadOptions()
    gold, has_spans = labelled_gold(input_path, read)
    texts, labels = [m.text for m in gold], [m.label for m in gold]
    counts = model.check_training_labels(labels)
    fitted = model.train(texts, labels, kind=kind, feature_set=feature_set, normalise=normalise, seed=seed)
    extras = {}
    if has_spans and not normalise:
        extras = train_word_scorer(gold, feature_set, seed)
    metadata = model.save_model(
        fitted, Path(output), training_size=len(texts), class_counts=counts, seed=seed, force=force,
        protect=[input_path], **extras
    )
    return TrainSummary(Path(output), metadata)


def train_word_scorer(gold, feature_set: str, seed: int) -> dict:
    """The word scorer and the budget calibration, from gold spans: risks of the training
    messages under cross-validation give the quantiles that turn a budget into a threshold."""
    import numpy as np

    from triage import evaluate, lexicons, names
    from triage.combiner import BudgetPolicy, EvidenceBatch

    analysed = evaluate.analyse(gold, feature_set)
    evidence = evaluate.cross_validated_evidence(analysed, folds=5, seed=seed)
    policy = BudgetPolicy()
    risks = policy.decide_batch(EvidenceBatch.from_evidence(evidence)).risk
    X, y = evaluate.word_training_rows(analysed, range(len(gold)))
    return {
        "word_model": names.make_word_model(seed).fit(X, y),
        "spelling": names.default_spelling(lexicons.default()),
        "risk_quantiles": np.quantile(risks, np.linspace(0, 1, 1001)),
        "policy": {"name": "budget", "hide_threshold": policy.hide_threshold, "score_weight": policy.score_weight},
    }
