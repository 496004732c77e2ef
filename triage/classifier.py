"""The classifier: Seek&Hide, the message features and model, the word scorer and the
combiner, on a batch of messages at once (one classifier per process). It turns (id, text)
pairs into the rows of `triage classify` (triage.schema.CLASSIFY_COLUMNS).

A batch goes through the pipeline preset `classify` of triage/pipeline/stages.txt (triage.pipeline), the
classifier being the context its components work with. The components of the combining end are
registered below: evidence, policy, highlight, hide, and `spans` (what the policy would hide in
each message whatever its decision, for the cells a release keeps).
"""

from __future__ import annotations

import functools
import itertools
from collections import Counter
from dataclasses import dataclass
from json.encoder import encode_basestring  # json.dumps' own escaping, one string at a time

import numpy as np

from triage import combiner, recognizers
from triage.errors import BadModel
from triage.io.writing import encode_columns, encode_columns_held
from triage import lexicons as lexicon_module
from triage.combiner import EvidenceBatch
from triage import model as _model  # noqa: F401  (registers the component "model")
from triage.features import counts as _counts  # noqa: F401  (registers the component "features")
from triage.lexicons import TITLES
from triage.pipeline.memory import VOCABULARY
from triage.model.names import candidate_tags, candidate_words, learn_candidates
from triage.text.normalise import hide_in_original
from triage.text.stretches import Stretched
from triage.pipeline import PRESETS, Pipeline, component
from triage.schema import CLASSIFY_COLUMNS, DEFAULT_HIDE, MESSAGE_LABELS, NTA, TA
from triage.seekhide import SeekAndHide
from triage.seekhide.components import hide_spans, located_words

_SEEKHIDE, _DECISION = CLASSIFY_COLUMNS.index("seekhide"), CLASSIFY_COLUMNS.index("decision")


@dataclass
class ClassifiedChunk:
    """A chunk as an engine gives it back: its rows encoded in the output format (no header)
    and the counts of the summary. Encoding where the rows are made keeps the process that
    writes from becoming the bottleneck of --jobs."""

    text: str | bytes  # (in UTF-8 when sent back from a worker: engines._sent_back)
    rows: int
    decisions: dict[str, int]
    seekhide: dict[str, int]
    # the rows themselves, in output format "cells" (in memory)
    cells: list | None = None
    # beside the text when the classifier keeps them (keep_cells): the rows' cells column by
    # column, in CLASSIFY_COLUMNS order, as classify makes them (the workspace and the queue take
    # them so)
    columns: list | None = None
    # When the corpus is ranked afterwards (an exact expert budget): each row's risk, and where
    # its decision cell lies in `text` (HeldChunks sets the cells of the rows chosen): offsets of
    # characters, of bytes once the text is in UTF-8 (triage.io.writing.in_utf8).
    risk: np.ndarray | None = None
    cell_at: np.ndarray | None = None
    cell_stop: np.ndarray | None = None
    # ... and whether each row's decision is TA (the others' NTA, before the ranking): what the rows
    # chosen then were, known before their cells are set.
    ta: np.ndarray | None = None


# What the learning preset ("vocabulary") assigns that classifying the chunk it learnt reads (Classifier.learn).
LEARNT_FIELDS = ("folded", "folding_maps", "analysis", "features", "recognised")

# A visible candidate word at least this likely to be a name is shown to the expert.
HIGHLIGHT_PROBABILITY = 0.2


class FoldedPairs(list):
    """(id, text) pairs with their texts folded already as Seek&Hide reads them (`folded` and
    `folding_maps`, triage.text.normalise.fold_batch's) and cut into stretch ids (`stretched`,
    triage.text.stretches.STRETCH_IDS.cut's, or None): the corpus statistics pass folds and cuts
    every text (triage.jobs.corpus_stats), and the chunks it keeps for classifying keep them so,
    so that classify does not fold and cut them again. Sent to another process, they keep their
    folded texts (only those that differ from the texts travel) and their stretch ids, which
    are read there only if valid there (STRETCH_IDS.valid: a process forked after they were cut)."""

    def __init__(self, pairs, folded: list[str], folding_maps: dict, stretched):
        super().__init__(pairs)
        self.folded, self.folding_maps, self.stretched = folded, folding_maps, stretched

    def __reduce__(self):
        changed = {at: self.folded[at] for at in self.folding_maps}
        return FoldedPairs.with_changed, (list(self), changed, self.folding_maps, self.stretched)

    @classmethod
    def with_changed(cls, pairs: list, changed: dict[int, str], folding_maps: dict, stretched) -> FoldedPairs:
        """Pairs folded in another process (sent by __reduce__, or by a worker of the statistics
        pass): the texts folded are the texts but those `changed`, by index."""
        folded = [text for _, text in pairs]
        for at, text in changed.items():
            folded[at] = text
        return cls(pairs, folded, folding_maps, stretched)

    @classmethod
    def joined(cls, parts: list[FoldedPairs]) -> FoldedPairs:
        """Chunks of folded pairs as one, in turn: their stretch ids kept if every part has ids
        of the same table (else None: cut again where they are classified)."""
        pairs, folded, maps = [], [], {}
        for part in parts:
            maps.update((len(pairs) + at, value) for at, value in part.folding_maps.items())
            pairs.extend(part)
            folded.extend(part.folded)
        cuts = [part.stretched for part in parts]
        stretched = None
        if all(cut is not None for cut in cuts) and len({cut.token for cut in cuts}) == 1:
            stretched = Stretched(np.concatenate([cut.ids for cut in cuts]), np.concatenate([cut.counts for cut in cuts]),
                                  cuts[0].token, max(cut.given for cut in cuts))
        return cls(pairs, folded, maps, stretched)


def fit_in_batch(chunks: list[list[tuple[str, str]]], batch: tuple[int, int]) -> bool:
    """Whether chunks of (id, text) pairs hold, together, at most `batch`: a number of messages
    and of characters of text (what one batch of classify may hold)."""
    messages, characters = batch
    return sum(map(len, chunks)) <= messages and sum(len(text) for chunk in chunks for _, text in chunk) <= characters


class ScoreMemory:
    """The word scorer's probability of each row it has scored, by the row's key (candidate_words'):
    the keys sorted in a numpy column, the probabilities beside them, so that a batch's keys are
    looked up by one sorted search. Keys added go to a smaller pair of sorted columns first, merged
    into the large one when they outgrow a quarter of it (or RECENT keys). Counted in the VOCABULARY
    budget as the kind "scores": it may be emptied between two batches."""

    RECENT = 1 << 15

    def __init__(self) -> None:
        self.clear()
        VOCABULARY.track(self, "scores")

    def clear(self) -> None:
        self.keys, self.values = np.empty(0, np.int64), np.empty(0)
        self.recent_keys, self.recent_values = np.empty(0, np.int64), np.empty(0)

    def __len__(self) -> int:
        return len(self.keys) + len(self.recent_keys)

    def __reduce__(self):
        return type(self), ()  # copied or sent to another process empty: a memory of work

    def get_many(self, wanted: np.ndarray) -> np.ndarray:
        """The probability of each key of `wanted` (int64), -1.0 for a key not scored yet."""
        found = np.full(len(wanted), -1.0)
        for keys, values in ((self.keys, self.values), (self.recent_keys, self.recent_values)):
            if len(keys):
                at = np.minimum(np.searchsorted(keys, wanted), len(keys) - 1)
                hit = keys[at] == wanted
                found[hit] = values[at[hit]]
        return found

    def add(self, keys: np.ndarray, values: np.ndarray) -> None:
        """Remember the probabilities `values` of the keys `keys` (int64, sorted, none known yet)."""
        at = np.searchsorted(self.recent_keys, keys)
        self.recent_keys = np.insert(self.recent_keys, at, keys)
        self.recent_values = np.insert(self.recent_values, at, values)
        if len(self.recent_keys) > max(len(self.keys) // 4, self.RECENT):
            at = np.searchsorted(self.keys, self.recent_keys)
            self.keys = np.insert(self.keys, at, self.recent_keys)
            self.values = np.insert(self.values, at, self.recent_values)
            self.recent_keys, self.recent_values = np.empty(0, np.int64), np.empty(0)


class Classifier:
    """Seek&Hide + features + models + combiner on batches of messages (one per process)."""

    def __init__(self, predictor, policy: str | None = None, budget: float | None = 0.10, lexicons=None, stats=None,
                 output_format: str = "csv", hide=DEFAULT_HIDE, known_names=None):
        """`budget`: the share of messages for the risk threshold calibrated at training, or
        None to send no message to the expert here: the caller ranks the whole corpus by the
        risks of the chunks (`ranked`) and sets the decision of the riskiest. `known_names`: a
        triage.seekhide.KnownNames, hidden with their variants in every message."""
        self.lexicons = lexicons or lexicon_module.default()
        self.seeker = SeekAndHide(self.lexicons, known=known_names)
        self.predictor = predictor
        trained = dict(predictor.metadata.get("policy") or {"name": "paper"})
        name = policy or trained.pop("name", "paper")
        trained.pop("name", None)
        if name == "budget":
            if predictor.word_forest is None:
                raise BadModel("the budget policy needs a model trained with gold spans (a 'spans' column)")
            trained["risk_threshold"] = float("inf") if budget is None else predictor.risk_threshold(budget)
        self.ranked = name == "budget" and budget is None
        self.policy = combiner.get_policy(name, **trained)
        self.stats = stats
        self.output_format = output_format
        # The chunks also carry their rows' cells, beside the encoded text (classify --workspace:
        # the workspace takes them as they come, and never reads the output back).
        self.keep_cells = False
        self.hide = frozenset(hide)  # the categories to hide (--hide)
        self._scores = ScoreMemory()
        self._scores_for = None
        self.pipeline = Pipeline.preset("classify", self)
        # For chunks whose texts the corpus statistics pass folded already (FoldedPairs).
        self.folded_pipeline = Pipeline.preset("classify", self, without=["fold", "stretch"],
                                               given=["folded", "folding_maps", "stretched"])
        self.learning = Pipeline.preset("vocabulary", self)
        self.folded_learning = Pipeline.preset("vocabulary", self, without=["fold", "stretch"],
                                               given=["folded", "folding_maps", "stretched"])
        self.learnt = False  # whether `learn` has run: the spellings of a chunk are known already
        self._learnt_chunk = None  # (the pairs `learn` learnt, its batch), until classified
        # For that chunk: the steps the learning preset ran are not run again, their fields given.
        self.learnt_pipeline = Pipeline.preset("classify", self, without=PRESETS["vocabulary"].components,
                                               given=LEARNT_FIELDS)

    @property
    def feature_set(self) -> str:
        return self.predictor.feature_set

    @property
    def normalise(self) -> bool:
        return self.predictor.normalise

    def evidence(self, analysis, scores):
        """What the machines say about a batch of messages (candidate words scored at once)."""
        return self.combined(scores, recognizers.apply(analysis, self.hide), self.candidates(analysis), analysis)

    def candidates(self, analysis):
        """The candidate words of a batch, scored at once: (their tokens, the tag each would be
        hidden as, the word scorer's probability that each is a name); None with no scorer."""
        if self.predictor.word_forest is None:
            return None
        tokens, keys, features = candidate_words(analysis, self.stats, self.predictor.spelling)
        return (tokens, candidate_tags(analysis, tokens, self.predictor.spelling),
                self._word_probabilities(analysis, features, keys))

    def combined(self, scores, recognised, candidates, analysis) -> EvidenceBatch:
        """The evidence of a batch: the message model's `scores`, what the recognizers hide
        (`recognised`, as triage.recognizers.apply gives it) and the scored `candidates`."""
        hidden, labels, found = recognised
        seekhide = np.asarray(MESSAGE_LABELS, dtype=object)[labels]
        if candidates is None:
            return EvidenceBatch(seekhide, scores, hidden)
        tokens, tags, probability = candidates
        tags, probability, taken, kept, decides, ends = recognizers.candidates(found, tokens, tags, probability,
                                                                               self.hide, analysis.end)
        return EvidenceBatch(seekhide, scores, hidden, analysis.message[tokens], analysis.start[tokens], ends, tags,
                             probability, taken, kept, decides)

    def _word_probabilities(self, analysis, features, keys):
        """The scorer's P(name) of each candidate word (`features(rows)`: the features of the words
        at `rows`, candidate_words'). Candidate words recur in the same context (SMS are Zipfian):
        each distinct row is scored once per run, remembered by its key, and the features are
        worked out for the keys not remembered only."""
        if self._scores_for is not analysis.spellings:  # keys hold spelling ids
            self._scores, self._scores_for = ScoreMemory(), analysis.spellings
        distinct, first, inverse = np.unique(keys, return_index=True, return_inverse=True)
        known = self._scores
        probs = known.get_many(distinct)
        unseen = np.flatnonzero(probs < 0)
        if len(unseen):
            probs[unseen] = self.predictor.word_forest.predict_proba(features(first[unseen]))
            known.add(distinct[unseen], probs[unseen])
        return probs[inverse.ravel()]

    @staticmethod
    def highlighted(analysis, evidence, decisions) -> list[list[str]]:
        """Per message, the words a human should look at: Seek&Hide's ambiguous or unknown
        words, and the candidate words the name scorer found possibly name-like but left
        visible."""
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

    def learn(self, messages: list[tuple[str, str]]) -> None:
        """Learn the spellings of (id, text) pairs (FoldedPairs: folded and cut already), what the
        steps before the word scorer work out of them and what the word scorer reads of the
        spellings alone (the rest of it needs the corpus statistics), and make the trees' tables:
        before a local Dask cluster, this process learns the first chunk's while the workers count
        the corpus (triage.jobs.corpus_stats), and the cluster's workers forked afterwards start
        with them; a worker of --jobs learns the first batch it classifies while the statistics
        pass ends (triage.engines.KeepingPool). What is classified is the same."""
        texts = [text for _, text in messages]
        if isinstance(messages, FoldedPairs):
            learnt = self.folded_learning(texts=texts, folded=messages.folded, folding_maps=messages.folding_maps,
                                          stretched=messages.stretched)
        else:
            learnt = self.learning(texts=texts)
        if self.predictor.word_forest is not None:  # what the word scorer reads of the spellings alone
            learn_candidates(learnt.analysis, self.predictor.spelling)
        self.predictor.prepare()  # the workers forked afterwards share the trees' tables
        self.learnt = True
        # The chunk is classified from this batch, once, by the process that gets it: the steps up
        # to the word scorer are not run on it again (_reused).
        self._learnt_chunk = (messages, learnt)

    # Messages that need what a process makes the first time it classifies: an address, a phone
    # number, an e-mail and a web address, first names, a place, a brand, SMS spellings (make_tables).
    _FIRST_USE = (
        ("1", "Salut Patrice, rdv au 12 rue de la Paix à Lyon demain ? Appelle au 06 12 34 56 78 stp"),
        ("2", "Ok merci Julie bisous, mon mail c'est bob@exemple.fr et le site http://www.exemple.fr"),
        ("3", "Mdr jsuis chez Mc Do avc Marc, on va à Marseile ce week-end... Mme Dupont dit code 1234"),
    )

    def make_tables(self) -> None:
        """Make the tables every process makes the first time it classifies (the address
        expression, the lexicons' sorted lists and tables of words, the recognizers' places and
        brands), by classifying a few messages with a classifier of its own: the workers forked
        afterwards share them instead of each making its own. What this classifier has learnt
        stays as it is."""
        spare = Classifier(self.predictor, budget=None, lexicons=self.lexicons, stats=self.predictor.corpus_stats(),
                           output_format=self.output_format, hide=self.hide)
        spare.pipeline(ids=[ident for ident, _ in self._FIRST_USE], texts=[text for _, text in self._FIRST_USE])

    def _reused(self, messages: list[tuple[str, str]]):
        """The batch `learn` made of `messages` if these are the pairs it learnt, else None. Asked
        by the first chunk classified after `learn` only (the chunk learnt is the first one sent
        to the workers: the worker that gets it classifies it first; a worker of --jobs learns
        the batch it classifies first), and let go of then either way: the batch holds the table
        of spellings it was made with, which the memory budget may retire."""
        learnt, self._learnt_chunk = self._learnt_chunk, None
        if learnt is None or len(learnt[0]) != len(messages) or learnt[0] != messages:
            return None
        return learnt[1]

    def classify(self, messages: list[tuple[str, str]]) -> ClassifiedChunk:
        """The output rows of (id, text) pairs encoded in the output format, with the counts
        of the summary."""
        return self.classify_parts(messages, [len(messages)])[0]

    def classify_parts(self, messages: list[tuple[str, str]], sizes: list[int]) -> list[ClassifiedChunk]:
        """classify() of each of the consecutive parts of `messages`, `sizes` of them in turn,
        the messages classified as one batch: what a message is classified as does not depend
        on its batch, and each batch costs the steps some fixed work."""
        columns, risk = self._columns(messages)
        if len(sizes) == 1:
            return [self._chunk(columns, risk)]
        parts, start = [], 0
        for size in sizes:
            stop = start + size
            parts.append(self._chunk([column[start:stop] for column in columns], risk[start:stop]))
            start = stop
        return parts

    def _chunk(self, columns: list[list[str]], risk: np.ndarray) -> ClassifiedChunk:
        """The ClassifiedChunk of messages, given their output columns and risks."""
        rows = len(columns[0])
        counts = Counter(columns[_DECISION]), Counter(columns[_SEEKHIDE])
        risk, ta = (risk, np.fromiter(map(TA.__eq__, columns[_DECISION]), dtype=bool, count=rows)) \
            if self.ranked else (None, None)
        if self.output_format == "cells":  # kept in memory (the Python API), not encoded
            return ClassifiedChunk("", rows, *counts, cells=list(map(list, zip(*columns))),
                                   columns=columns if self.keep_cells else None, risk=risk, ta=ta)
        kept = columns if self.keep_cells else None
        if self.ranked:
            text, cell_at, cell_stop = encode_columns_held(columns, CLASSIFY_COLUMNS, self.output_format, "decision")
            return ClassifiedChunk(text, rows, *counts, columns=kept, risk=risk, cell_at=cell_at,
                                   cell_stop=cell_stop, ta=ta)
        text = encode_columns(columns, CLASSIFY_COLUMNS, self.output_format)
        return ClassifiedChunk(text, rows, *counts, columns=kept)

    def rows(self, messages: list[tuple[str, str]]) -> list[list[str]]:
        """The output rows of (id, text) pairs: lists of cells in CLASSIFY_COLUMNS order."""
        return list(map(list, zip(*self.columns(messages))))

    def columns(self, messages: list[tuple[str, str]]) -> list[list[str]]:
        """The output cells of (id, text) pairs, column by column in CLASSIFY_COLUMNS order
        (built a column at a time: no Python step per message and cell)."""
        return self._columns(messages)[0]

    def _columns(self, messages: list[tuple[str, str]]) -> tuple[list[list[str]], np.ndarray]:
        """columns(), and the risk of each message as a number: the batch through every stage."""
        ids, texts = [ident for ident, _ in messages], [text for _, text in messages]
        learnt = self._reused(messages)
        if learnt is not None:
            batch = self.learnt_pipeline(ids=ids, texts=texts, **{name: getattr(learnt, name) for name in LEARNT_FIELDS})
        elif isinstance(messages, FoldedPairs):
            batch = self.folded_pipeline(ids=ids, texts=texts, folded=messages.folded,
                                         folding_maps=messages.folding_maps, stretched=messages.stretched)
        else:
            batch = self.pipeline(ids=ids, texts=texts)
        return output_columns(batch), batch.decisions.risk


# ---------------------------------------------------------------------- the components


def output_columns(batch) -> list[list[str]]:
    """The output cells of a batch through the classify preset, column by column in
    CLASSIFY_COLUMNS order."""
    return [
        batch.ids,
        batch.texts,
        batch.evidence.seekhide.tolist(),
        np.where(batch.scores >= 0.5, TA, NTA).tolist(),
        _four_decimals(batch.scores),
        batch.decisions.decision.tolist(),
        batch.anonymised,
        batch.hidden,
        ["[" + ", ".join(map(encode_basestring, words)) + "]" if words else "[]" for words in batch.highlighted],
        _four_decimals(batch.decisions.risk),
    ]


@functools.cache
def _decimal_cells() -> np.ndarray:
    """"0.0000", "0.0001", ... "1.0000" (an array of objects): the cells of _four_decimals."""
    return np.array([f"{k // 10000}.{k % 10000:04d}" for k in range(10001)], dtype=object)


def _four_decimals(values: np.ndarray) -> list[str]:
    """Each of `values` (floats) written with four decimals, as "{:.4f}".format writes it, taken
    from a table of the 10,001 cells from 0.0000 to 1.0000: a value from 0 to 1 is rounded to the
    nearest multiple of 0.0001 by numpy (its product by 10,000 is off by less than 1e-11, which
    never changes the nearest integer but within 1e-6 of a half: such a value is written by
    Python). Any other value (negative, -0.0, above 1, not a number) is written by Python too."""
    values = np.asarray(values, dtype=np.float64)
    with np.errstate(over="ignore", invalid="ignore"):
        scaled = values * 10000.0
        plain = (values >= 0.0) & (values <= 1.0) & ~np.signbit(values) & (np.abs(scaled % 1.0 - 0.5) > 1e-6)
    cells = _decimal_cells()[np.where(plain, np.rint(scaled), 0).astype(np.int64)]
    others = np.flatnonzero(~plain)
    for at, value in zip(others.tolist(), values[others].tolist()):
        cells[at] = "{:.4f}".format(value)
    return cells.tolist()


@component("word-scorer", requires=["analysis"], assigns=["candidates"])
def _word_scorer(classifier: Classifier, batch) -> None:
    batch.candidates = classifier.candidates(batch.analysis)


@component("evidence", requires=["analysis", "scores", "recognised", "candidates"], assigns=["evidence"])
def _evidence(classifier: Classifier, batch) -> None:
    batch.evidence = classifier.combined(batch.scores, batch.recognised, batch.candidates, batch.analysis)


@component("policy", requires=["evidence"], assigns=["decisions"])
def _policy(classifier: Classifier, batch) -> None:
    batch.decisions = classifier.policy.decide_batch(batch.evidence)


@component("highlight", requires=["texts", "folded", "folding_maps", "analysis", "evidence", "decisions"],
           assigns=["highlighted"])
def _highlight(classifier: Classifier, batch) -> None:
    batch.highlighted = located_words(classifier.highlighted(batch.analysis, batch.evidence, batch.decisions),
                                      batch.texts, batch.folded, batch.folding_maps)


@component("hide", requires=["texts", "folded", "folding_maps", "decisions"], assigns=["anonymised", "hidden"])
def _hide(classifier: Classifier, batch) -> None:
    decisions = batch.decisions
    decision = decisions.decision.tolist()
    hidden = [m for m in itertools.compress(range(len(decision)), decisions.hidden) if decision[m] != NTA]
    batch.anonymised, batch.hidden = hide_spans(classifier.seeker, batch.texts, batch.folded, batch.folding_maps,
                                                decisions.hidden, hidden)


@component("spans", requires=["texts", "folded", "folding_maps", "decisions"], assigns=["spans"])
def _spans(classifier: Classifier, batch) -> None:
    texts, folded, folding_maps = batch.texts, batch.folded, batch.folding_maps
    found = []
    for m, spans in enumerate(batch.decisions.hidden):
        spans = spans or []
        if spans and m in folding_maps:
            _, spans = hide_in_original(classifier.seeker.code_for, texts[m], folded[m], spans, folding_maps[m])
        found.append(spans)
    batch.spans = found
