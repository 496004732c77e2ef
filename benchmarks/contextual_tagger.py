"""Does a word tagger that reads the context beat the per-word scorer, end to end?

The word scorer (triage.model.names) gives each candidate word a probability of being a name from the
word's own features and a few flags about where it stands (a cue or a title before it,
punctuation after it, at the start of a sentence, last word). This script measures, in donor-grouped 5-fold cross-validation repeated
with several seeds, what a scorer that reads more of the context would change at the end of the
pipeline: the gold spans left readable, the identifiers exposed, the precision of what is hidden as
a person and the ordinary words hidden when the budget policy sends exactly 10% of each file's
messages to a human, all ten categories hidden, as `triage evaluate A B` computes them
(triage.model.training.evidence_from, then triage.model.evaluation.policies and release_metrics),
file by file.

The variants, all fed the same Seek&Hide analyses and candidate rows (triage.model.training.analyse):

- A: the per-word scorer, trained as `triage train` trains it (triage.model.training.fit_word_scorer);
- B: the same gradient boosting over the same rows plus a window of context: the features of the tokens two
  before and two after (kind, Seek&Hide label, capital, cue, title, listed first name or
  surname, candidate or not), the neighbours' scores from A (stacked: out-of-fold scores inside
  the training folds, so that the second model never learns from over-confident scores), and
  message counts (words, candidates, names Seek&Hide found, cues, detector hits, the other
  candidates' scores);
- B1: a smaller B, to tell whether B's size is what hurts: A's model over the word features
  and the features of the token just before and just after only (no scores, no counts);
- C: a linear-chain CRF (CRFsuite, through python-crfsuite, when it is installed) over all the
  words of each message with the same features, discretised; its marginal probability that a
  candidate word is a name replaces A's;
- D: B and C (and A, for reference) trained also on copies of the training messages whose
  first names, surnames and nicknames are replaced by other names drawn from the lexicons'
  name lists (a nickname is built from a drawn first name), so that the models meet names they
  cannot have seen. Copies are made of the training folds' messages only and never tested on.

The gold files are read together, their donors grouped (a donor of one file is never taken for
one of another), and every figure is given file by file. Every seed draws another assignment of
donors to the 5 folds (GroupKFold with shuffling), other models and, for D, other replacement names; the message model (the same for every variant of a
seed) is trained in each fold as triage.model.training.cross_validated_evidence trains it. Reported:
mean and standard deviation over the seeds, the paired difference to A, the readable spans by
gold category, the same at the combiner's other hide thresholds (a scorer whose probabilities
are scaled otherwise is compared at equal precision), a candidate-level ranking
measure (average precision), and the time spent training and predicting.

    python benchmarks/contextual_tagger.py [--gold FILE ...] [--seeds 10] [--copies 2] [--variants A B ...]
                                           [--out benchmarks/results/contextual-tagger.json]

The default gold files are the development corpus ($TRIAGE_DEV_CORPUS, see CONTRIBUTING.md) and the
large development file beside it; the script says so and stops when they are absent. About four
minutes a seed for the two files on a 2-core machine
(python-crfsuite: `pip install python-crfsuite`, a wheel; without it C and D-C are skipped).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import tempfile
import time
import warnings
from dataclasses import dataclass
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parent.parent
DEV = Path(os.environ.get("TRIAGE_DEV_CORPUS") or REPO.parent / "shared" / "data" / "sms_dev_88milsms.csv")
# The large development file, read beside the small one when it is there (as `triage evaluate A B`).
DEV_LARGE = DEV.with_name("sms_dev_large_88milsms.csv")

BUDGETS = (0.0, 0.05, 0.10)
CHOSEN_BUDGET = 0.10
# The combiner hides a candidate word whose probability reaches 0.7 (combiner.HIDE_THRESHOLD,
# chosen for the word scorer's probabilities); a scorer with other probabilities (the CRF's are
# lower) is also read at other thresholds, at the chosen budget, to compare at equal precision.
HIDE_THRESHOLDS = (0.3, 0.5, 0.6, 0.7, 0.8)
# What each file reports, at each budget and hide threshold (triage.model.evaluation.main_figures).
FIGURES = ("residual_span_rate", "identifiers_exposed", "person_precision", "over_masking_rate", "message_leak_rate")
PERSON = ("PRE", "NOM", "SUR")
FOLDS = 5
# What each token of the window says (all zeros beyond the message's ends, "exists" then 0).
TOKEN_FEATURES = (
    "exists", "word", "number", "punctuation", "sentence_end", "emoticon", "detected",
    "dictionary", "ambiguous", "unknown", "ordinary", "capitalised", "all_caps",
    "cue", "title", "first_name", "surname", "candidate",
)
OFFSETS = (-2, -1, 1, 2)
MESSAGE_FEATURES = ("words", "candidates", "names", "cues", "detections")


# ---------------------------------------------------------------------- the rows of one analysed corpus


@dataclass
class Pool:
    """The candidate rows of one analysed gold set, with what the context variants read."""

    analysed: object  # triage.model.training.AnalysedGold
    message: np.ndarray  # per row: its message
    X: np.ndarray  # per row: the word scorer's features (WORD_FEATURES)
    y: np.ndarray  # per row: 1 when the word overlaps a gold span (triage.model.names.gold_targets)
    window: np.ndarray  # per row: TOKEN_FEATURES of the tokens at OFFSETS, concatenated
    neighbour: np.ndarray  # per row and offset: the row of the neighbour when it is a candidate, else -1
    counts: np.ndarray  # per row: MESSAGE_FEATURES of its message
    sequences: list  # per message: the CRF's (attributes per word, label per word, row of each candidate word)

    def rows_of(self, messages) -> np.ndarray:
        return np.flatnonzero(np.isin(self.message, np.asarray(list(messages), dtype=np.int64)))


def token_table(analysis, candidate_tokens: np.ndarray) -> np.ndarray:
    """TOKEN_FEATURES of every token of an analysis."""
    from triage.model.names import _context_flags_many
    from triage.seekhide import K_DETECTED, K_EMOTICON, K_PUNCT, K_WORD, L_AMBIGUOUS, L_ANTI, L_DICTIONARY, L_UNKNOWN
    from triage.seekhide import spelling_batch as batch
    from triage.seekhide.table import KINDS
    from triage.text.tokenise import NUMBER

    a, table = analysis, analysis.spellings
    columns = table.numpy()
    context = table.column(_context_flags_many)
    all_caps = np.fromiter((len(text) > 1 and text.isupper() for text in table.texts), dtype=bool,
                           count=len(table.texts))
    first = batch.known(table, "first_names", "lower")
    last = batch.known(table, "last_names", "lower")
    sid, kind, label = a.spelling, a.kind, a.label
    word = kind == K_WORD
    candidate = np.zeros(len(sid), bool)
    candidate[candidate_tokens] = True
    out = {
        "exists": np.ones(len(sid), bool),
        "word": word,
        "number": kind == KINDS.index(NUMBER),
        "punctuation": kind == K_PUNCT,
        "sentence_end": columns.sentence_end[sid] & (kind == K_PUNCT),
        "emoticon": kind == K_EMOTICON,
        "detected": kind == K_DETECTED,
        "dictionary": label == L_DICTIONARY,
        "ambiguous": label == L_AMBIGUOUS,
        "unknown": label == L_UNKNOWN,
        "ordinary": label == L_ANTI,
        "capitalised": word & context[sid, 0] & ~all_caps[sid],
        "all_caps": word & all_caps[sid],
        "cue": word & context[sid, 1],
        "title": word & context[sid, 2],
        "first_name": word & first[sid],
        "surname": word & last[sid],
        "candidate": candidate,
    }
    return np.column_stack([out[name] for name in TOKEN_FEATURES]).astype(float)


def candidate_tokens_of(analysed) -> np.ndarray:
    """The token of each candidate row, in row order (as triage.model.training.evidence_from finds them)."""
    from triage.seekhide import K_WORD

    a = analysed.analysis
    words = np.flatnonzero(a.kind == K_WORD)
    first_word = np.searchsorted(words, a.bounds[:-1])
    return np.asarray([words[first_word[m] + i] for m, (indices, _) in enumerate(analysed.word_rows)
                       for i in indices], dtype=np.int64)


def pool_of(analysed) -> Pool:
    from triage.model.names import WORD_FEATURES, gold_targets
    from triage.seekhide import K_WORD

    a = analysed.analysis
    tokens = candidate_tokens_of(analysed)
    n_tokens = len(a.spelling)
    T = token_table(a, tokens)
    message = a.message[tokens] if len(tokens) else np.zeros(0, np.int64)
    X = np.vstack([rows for indices, rows in analysed.word_rows if len(indices)]) if len(tokens) else np.zeros((0, len(WORD_FEATURES)))
    y = np.asarray([t for i, (indices, _) in enumerate(analysed.word_rows) if len(indices)
                    for t in gold_targets(analysed.results[i], indices, analysed.gold[i].spans)], dtype=int)
    row_of_token = np.full(n_tokens, -1, np.int64)
    row_of_token[tokens] = np.arange(len(tokens))
    window, neighbour = [], []
    for offset in OFFSETS:
        at = tokens + offset
        inside = (at >= 0) & (at < n_tokens)
        inside[inside] &= a.message[at[inside]] == message[inside]
        features = np.zeros((len(tokens), len(TOKEN_FEATURES)))
        features[inside] = T[at[inside]]
        window.append(features)
        rows = np.full(len(tokens), -1, np.int64)
        rows[inside] = row_of_token[at[inside]]
        neighbour.append(rows)
    m = len(analysed.gold)
    per_message = np.column_stack([
        np.bincount(a.message, weights=T[:, TOKEN_FEATURES.index(name)], minlength=m)
        for name in ("word", "candidate", "dictionary", "cue", "detected")])
    # CRF sequences: every word of each message, with the row of each candidate word.
    sequences = []
    word_of = np.flatnonzero(a.kind == K_WORD)
    cuts = np.searchsorted(word_of, a.bounds)
    targets_by_token = np.zeros(n_tokens, int)
    for i in range(m):
        spans = analysed.gold[i].spans
        for t in word_of[cuts[i]:cuts[i + 1]].tolist():
            targets_by_token[t] = int(any(s < a.end[t] and a.start[t] < e for s, e, _ in spans))
    for i in range(m):
        words = word_of[cuts[i]:cuts[i + 1]]
        attributes = [crf_attributes(T, X, row_of_token, t, a.message, n_tokens) for t in words.tolist()]
        sequences.append((attributes, ["N" if targets_by_token[t] else "O" for t in words.tolist()],
                          row_of_token[words]))
    return Pool(analysed, message, X, y, np.hstack(window) if window else np.zeros((0, 0)),
                np.column_stack(neighbour) if neighbour else np.zeros((0, 0), np.int64),
                per_message[message] if len(tokens) else np.zeros((0, len(MESSAGE_FEATURES))), sequences)


# ---------------------------------------------------------------------- A and B: gradient boosting


def stacked_features(pool: Pool, rows: np.ndarray, scores: np.ndarray) -> np.ndarray:
    """B's rows: the word features, the window, the neighbours' scores (`scores`: A's score of
    every row of the pool, 0 where unknown), the message counts and the other candidates'
    scores in the message (sum and largest)."""
    neighbour = pool.neighbour[rows]
    near = np.where(neighbour >= 0, scores[np.maximum(neighbour, 0)], 0.0)
    own = scores[rows]
    message = pool.message[rows]
    total = np.bincount(pool.message, weights=scores, minlength=len(pool.analysed.gold))
    others_sum = total[message] - own
    others_max = np.zeros(len(rows))
    by_message: dict[int, list[int]] = {}
    for r in np.flatnonzero(np.isin(pool.message, np.unique(message))).tolist():
        by_message.setdefault(int(pool.message[r]), []).append(r)
    for k, r in enumerate(rows.tolist()):
        others = [scores[o] for o in by_message[int(pool.message[r])] if o != r]
        others_max[k] = max(others) if others else 0.0
    return np.hstack([pool.X[rows], pool.window[rows], near, pool.counts[rows],
                      others_sum[:, None], others_max[:, None]])


def fitted(X, y, seed):
    from triage.model.names import fitted_word_model

    if len(set(y.tolist())) < 2:
        return lambda rows: np.zeros(len(rows))
    model = fitted_word_model(X, y, seed)
    positive = list(model.classes_).index(1)
    return lambda rows: model.predict_proba(rows)[:, positive]


NEAR = [OFFSETS.index(-1), OFFSETS.index(1)]  # B1's window: the tokens just before and after


def near_window(pool: Pool, rows: np.ndarray) -> np.ndarray:
    """B1's rows: the word features and TOKEN_FEATURES of the tokens at -1 and +1."""
    width = len(TOKEN_FEATURES)
    return np.hstack([pool.X[rows], *(pool.window[rows, k * width:(k + 1) * width] for k in NEAR)])


def group_of(pool: Pool) -> np.ndarray:
    return np.asarray([pool.analysed.gold[m].group for m in pool.message.tolist()], dtype=object)


def fit_b(train: list[tuple[Pool, np.ndarray]], seed: int):
    """B fitted on the rows `train` (pool, rows): a function (pool, rows) -> P(name)."""
    from sklearn.model_selection import GroupKFold

    X = np.vstack([pool.X[rows] for pool, rows in train])
    y = np.concatenate([pool.y[rows] for pool, rows in train])
    groups = np.concatenate([group_of(pool)[rows] for pool, rows in train])
    # Out-of-fold scores of A on the training rows (the donors' own rows never score themselves).
    oof = np.zeros(len(y))
    for inner_train, inner_test in GroupKFold(n_splits=FOLDS, shuffle=True, random_state=seed).split(X, y, groups):
        oof[inner_test] = fitted(X[inner_train], y[inner_train], seed)(X[inner_test])
    stacked, start = [], 0
    for pool, rows in train:
        scores = np.zeros(len(pool.y))
        scores[rows] = oof[start:start + len(rows)]
        start += len(rows)
        stacked.append(stacked_features(pool, rows, scores))
    second = fitted(np.vstack(stacked), y, seed)
    first = fitted(X, y, seed)

    def predict(pool: Pool, rows: np.ndarray) -> np.ndarray:
        if not len(rows):
            return np.zeros(0)
        scores = np.zeros(len(pool.y))
        scores[rows] = first(pool.X[rows])
        return second(stacked_features(pool, rows, scores))

    return predict


# ---------------------------------------------------------------------- C: a linear-chain CRF


def _bin(value: float, step: float) -> str:
    return str(int(np.floor(value / step)))


def crf_attributes(T, X, row_of_token, t, message, n_tokens) -> dict:
    """CRFsuite attributes of the word at token `t`: its own (word features discretised for a
    candidate, the token's flags) and its neighbours' flags at OFFSETS."""
    from triage.model.names import WORD_FEATURES

    attributes = {"bias": 1.0}
    row = row_of_token[t]
    if row >= 0:
        for name, value in zip(WORD_FEATURES, X[row].tolist()):
            if name == "first_name_rank":
                attributes[f"rank={_bin(value, 0.5)}"] = 1.0
            elif name == "length":
                attributes[f"length={min(int(value), 12)}"] = 1.0
            elif name == "corpus_lower":
                attributes[f"lower={_bin(value, 0.7)}"] = 1.0
            elif name == "spelling":
                attributes[f"spelling={_bin(value, 0.5)}"] = 1.0
            elif value:
                attributes[name] = 1.0
    else:
        attributes["not_candidate"] = 1.0
    for name, value in zip(TOKEN_FEATURES, T[t].tolist()):
        if value:
            attributes[f"0:{name}"] = 1.0
    for offset in OFFSETS:
        at = t + offset
        if 0 <= at < n_tokens and message[at] == message[t]:
            for name, value in zip(TOKEN_FEATURES, T[at].tolist()):
                if value:
                    attributes[f"{offset}:{name}"] = 1.0
        else:
            attributes[f"{offset}:none"] = 1.0
    return attributes


def crf_available() -> bool:
    try:
        import pycrfsuite  # noqa: F401
    except ImportError:
        return False
    return True


class CRF:
    """The CRF fitted on the messages `train` (pool, messages); predict() gives the marginal
    probability of "N" (name) at each candidate word of some messages."""

    def __init__(self, train: list[tuple[Pool, list[int]]], seed: int):
        import pycrfsuite

        trainer = pycrfsuite.Trainer(verbose=False)
        for pool, messages in train:
            for m in messages:
                attributes, labels, _ = pool.sequences[m]
                if attributes:
                    trainer.append(pycrfsuite.ItemSequence(attributes), labels)
        # L-BFGS with elastic-net regularisation (CRFsuite's usual settings for NER): deterministic,
        # so the seed changes only the folds.
        trainer.set_params({"c1": 0.1, "c2": 0.05, "max_iterations": 150, "feature.possible_transitions": True})
        self.folder = tempfile.TemporaryDirectory()
        path = str(Path(self.folder.name) / "crf.model")
        trainer.train(path)
        self.tagger = pycrfsuite.Tagger()
        self.tagger.open(path)

    def predict(self, pool: Pool, messages) -> np.ndarray:
        """P(name) of every row of `pool` (0 outside `messages`)."""
        import pycrfsuite

        out = np.zeros(len(pool.y))
        named = "N" in self.tagger.labels()
        for m in messages:
            attributes, _, rows = pool.sequences[m]
            if not named or not attributes or not (rows >= 0).any():
                continue
            self.tagger.set(pycrfsuite.ItemSequence(attributes))
            for position, row in enumerate(rows.tolist()):
                if row >= 0:
                    out[row] = self.tagger.marginal("N", position)
        return out

    def close(self) -> None:
        self.tagger.close()
        self.folder.cleanup()


# ---------------------------------------------------------------------- D: names replaced


class NameDraw:
    """Names drawn from the lexicons' lists: a first name or surname, most often a common one
    (60%: uniformly among the 5,000 most frequent), else any of the list (a rare one); a
    nickname built from a drawn first name as SMS writers build them (Juju, Seb, Loulou,
    Clairette)."""

    def __init__(self, lexicons):
        self.first = _names_of(lexicons.directory / "names" / "first_names.tsv")
        self.last = _names_of(lexicons.directory / "names" / "last_names.tsv")

    def draw(self, kind: str, written: str, rng: np.random.Generator) -> str:
        if kind == "NOM":
            name = self._one(self.last, rng)
        elif kind == "SUR":
            name = self._nickname(rng)
        else:
            name = self._one(self.first, rng)
        return _cased(name, written)

    @staticmethod
    def _one(names: list[str], rng) -> str:
        top = min(len(names), 5_000)
        return names[int(rng.integers(top))] if rng.random() < 0.6 else names[int(rng.integers(len(names)))]

    def _nickname(self, rng) -> str:
        base = self._one(self.first, rng).split("-")[0]
        letters = base.lower()
        syllable = letters[:2] if len(letters) < 4 or letters[1] in "aeiouy" else letters[:3]
        how = rng.integers(4)
        if how == 0 and len(letters) > 4:
            made = letters[: 3 + int(rng.integers(2))]  # Seb, Steph
        elif how == 1:
            made = syllable * 2  # Juju, Lolo
        elif how == 2:
            made = syllable + str(rng.choice(["ou", "ounet", "inou", "ette", "oute"]))
        else:
            made = letters
        return made.capitalize()


def _names_of(path: Path) -> list[str]:
    lines = path.read_text(encoding="utf-8").splitlines()[1:]
    rows = [line.split("\t") for line in lines if line.strip()]
    rows.sort(key=lambda r: int(r[2]) if len(r) > 2 and r[2].isdigit() else 10**9)
    return [r[0] for r in rows]


def _cased(name: str, written: str) -> str:
    if len(written) > 1 and written.isupper():
        return name.upper()
    if written[:1].islower():
        return name.lower()
    return name


def augmented_gold(gold, draw: NameDraw, rng: np.random.Generator):
    """A copy of `gold` whose person spans hold other names (offsets moved with them), and which
    messages changed."""
    from triage.model.gold import GoldMessage

    out, changed = [], []
    for i, m in enumerate(gold):
        spans = sorted(m.spans)
        if not any(kind in PERSON for _, _, kind in spans):
            out.append(m)
            continue
        pieces, moved, position, shift = [], [], 0, 0
        for start, end, kind in spans:
            pieces.append(m.text[position:start])
            written = m.text[start:end]
            new = draw.draw(kind, written, rng) if kind in PERSON and written.strip() == written else written
            moved.append((start + shift, start + shift + len(new), kind))
            pieces.append(new)
            shift += len(new) - (end - start)
            position = end
        pieces.append(m.text[position:])
        out.append(GoldMessage("".join(pieces), m.label, moved, m.group))
        changed.append(i)
    return out, changed


# ---------------------------------------------------------------------- the measures


def figures(gold, results, decisions) -> dict:
    """FIGURES of one policy's decisions, and the readable spans of each PERSON category."""
    from triage.model.evaluation import identifiers_exposed, release_metrics

    m = release_metrics(gold, results, decisions)
    by_type = m["residual_by_type"]
    return {**{name: identifiers_exposed(gold, decisions) if name == "identifiers_exposed" else m[name]
               for name in FIGURES},
            "readable": {kind: by_type.get(kind, {"readable": 0})["readable"] for kind in PERSON},
            "spans": {kind: by_type.get(kind, {"spans": 0})["spans"] for kind in PERSON}}


def measured(analysed, scores, word_probs, hide, files: list[np.ndarray]) -> list[dict]:
    """Per file (`files`: the messages of each), FIGURES at each budget and at each hide threshold
    with the chosen budget, the budget read in each file as `triage evaluate A B` reads it."""
    from triage.model.evaluation import hidden_gold, policies
    from triage.model.training import evidence_from

    all_evidence = evidence_from(analysed, scores, word_probs, hide)
    scored = hidden_gold(analysed, hide)
    report = []
    for messages in files:
        evidence = [all_evidence[i] for i in messages.tolist()]
        gold = [scored.gold[i] for i in messages.tolist()]
        results = [analysed.results[i] for i in messages.tolist()]
        chosen = policies(evidence, BUDGETS)
        out = {f"{budget:.2f}": figures(gold, results, chosen[budget].decide(evidence)) for budget in BUDGETS}
        for threshold in HIDE_THRESHOLDS:
            decided = policies(evidence, [CHOSEN_BUDGET], hide_threshold=threshold)[CHOSEN_BUDGET].decide(evidence)
            out[f"hide_threshold={threshold}"] = figures(gold, results, decided)
        report.append(out)
    return report


def ranking(y: np.ndarray, p: np.ndarray) -> dict:
    from sklearn.metrics import average_precision_score, roc_auc_score

    return {"average_precision": float(average_precision_score(y, p)), "roc_auc": float(roc_auc_score(y, p))}


def per_message(pool: Pool, probs: np.ndarray) -> list[np.ndarray]:
    cuts = np.searchsorted(pool.message, np.arange(len(pool.analysed.gold) + 1))
    return [probs[b:e] for b, e in zip(cuts[:-1], cuts[1:])]


# ---------------------------------------------------------------------- one seed


def one_seed(gold, analysed, pool: Pool, seed: int, variants: list[str], copies: int, draw, hide, files, log) -> dict:
    from imblearn.pipeline import Pipeline
    from sklearn.model_selection import GroupKFold

    from triage.model import make_model
    from triage.model.training import analyse, candidate_spellings, fit_word_scorer
    from triage.schema import TA

    labels = np.asarray([m.label for m in analysed.gold])
    groups = [m.group for m in analysed.gold]
    splits = list(GroupKFold(n_splits=FOLDS, shuffle=True, random_state=seed).split(analysed.X, labels, groups))
    # The message model, as cross_validated_evidence trains it: the same for every variant.
    scores = np.zeros(len(labels))
    for train, test in splits:
        model = Pipeline(make_model("bagging", analysed.feature_set, seed=seed).steps[1:])
        model.fit(analysed.X[train], labels[train])
        scores[test] = model.predict_proba(analysed.X[test])[:, list(model.classes_).index(TA)]
    spellings = [s for i in range(len(labels)) for s in candidate_spellings(analysed, i)]  # per row of the pool
    extra: list[tuple[Pool, list[int]]] = []  # the copies with names replaced, and which messages changed
    if any(v.startswith("D") for v in variants):
        rng = np.random.default_rng(seed)
        for _ in range(copies):
            copy, changed = augmented_gold(gold, draw, rng)
            extra.append((pool_of(analyse(copy, analysed.feature_set)), changed))
    out = {}
    for variant in variants:
        probs = np.zeros(len(pool.y))
        fit_seconds = predict_seconds = 0.0
        for train, test in splits:
            train_set = set(train.tolist())
            test_rows = pool.rows_of(test)
            with_copies = variant.startswith("D")
            copies_rows = [(p, p.rows_of([m for m in changed if m in train_set])) for p, changed in extra] if with_copies else []
            started = time.perf_counter()
            if variant == "A":
                scorer = fit_word_scorer(analysed, train, seed)
                fitted = time.perf_counter()
                probs[test_rows] = (scorer.probability(pool.X[test_rows], [spellings[r] for r in test_rows.tolist()])
                                    if len(test_rows) else 0)
            elif variant == "D-A":
                rows = [(pool, pool.rows_of(train)), *copies_rows]
                scorer = fitted(np.vstack([p.X[r] for p, r in rows]), np.concatenate([p.y[r] for p, r in rows]), seed)
                fitted = time.perf_counter()
                probs[test_rows] = scorer(pool.X[test_rows]) if len(test_rows) else 0
            elif variant == "B1":
                scorer = fitted(near_window(pool, pool.rows_of(train)), pool.y[pool.rows_of(train)], seed)
                fitted = time.perf_counter()
                probs[test_rows] = scorer(near_window(pool, test_rows)) if len(test_rows) else 0
            elif variant in ("B", "D-B"):
                scorer = fit_b([(pool, pool.rows_of(train)), *copies_rows], seed)
                fitted = time.perf_counter()
                probs[test_rows] = scorer(pool, test_rows)
            elif variant in ("C", "D-C"):
                messages = [(pool, train.tolist())]
                messages += [(p, [m for m in changed if m in train_set]) for p, changed in extra] if with_copies else []
                crf = CRF(messages, seed)
                fitted = time.perf_counter()
                probs[test_rows] = crf.predict(pool, test.tolist())[test_rows]
                crf.close()
            else:
                raise ValueError(variant)
            done = time.perf_counter()
            fit_seconds += fitted - started
            predict_seconds += done - fitted
        out[variant] = {
            "files": measured(analysed, scores, per_message(pool, probs), hide, files),
            "ranking": ranking(pool.y, probs),
            "seconds": {"fit_and_predict": round(fit_seconds + predict_seconds, 2)},
        }
        chosen = [f["0.10"] for f in out[variant]["files"]]
        log(f"seed {seed} {variant}: readable " + " / ".join(f"{c['residual_span_rate']:.2%}" for c in chosen)
            + ", person precision " + " / ".join("-" if c["person_precision"] is None else f"{c['person_precision']:.1%}"
                                                  for c in chosen)
            + f", AP {out[variant]['ranking']['average_precision']:.3f} ({fit_seconds + predict_seconds:.0f} s)")
    return out


# ---------------------------------------------------------------------- timing per message


def timing(analysed, pool: Pool, variants: list[str], seed: int) -> dict:
    """Seconds per message to train on all messages and to score all of them (features already
    computed: the window and counts cost about as much as one more pass over the tokens), for
    each variant (D's copies not counted: they cost training time only)."""
    from triage.model.training import candidate_spellings, fit_word_scorer

    n = len(analysed.gold)
    rows = np.arange(len(pool.y))
    out = {}
    for variant in variants:
        if variant.startswith("D") or variant == "B1":
            continue
        started = time.perf_counter()
        if variant == "A":
            scorer = fit_word_scorer(analysed, range(n), seed)
            trained = time.perf_counter()
            scorer.probability(pool.X, [s for i in range(n) for s in candidate_spellings(analysed, i)])
        elif variant == "B":
            scorer = fit_b([(pool, rows)], seed)
            trained = time.perf_counter()
            scorer(pool, rows)
        else:
            crf = CRF([(pool, list(range(n)))], seed)
            trained = time.perf_counter()
            crf.predict(pool, range(n))
            crf.close()
        done = time.perf_counter()
        out[variant] = {"train_ms_per_message": round(1000 * (trained - started) / n, 3),
                        "predict_ms_per_message": round(1000 * (done - trained) / n, 4)}
    # Feature building: the window and counts of every message (what B and C add to classify).
    started = time.perf_counter()
    pool_of(analysed)
    out["window_and_crf_features_ms_per_message"] = round(1000 * (time.perf_counter() - started) / n, 3)
    return out


# ---------------------------------------------------------------------- summary


def summary(per_seed: list[dict], variants: list[str], names: list[str]) -> dict:
    """Per file, per variant: mean and standard deviation over the seeds, and the paired difference to A."""
    def values(variant, path):
        out = []
        for seed in per_seed:
            value = seed[variant]
            for key in path:
                value = value[key]
            out.append(np.nan if value is None else value)
        return np.asarray(out, dtype=float)

    def stats(v, a=None) -> dict:
        # A figure undefined in every seed (the precision of a file where nothing was hidden) stays NaN.
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            row = {"mean": float(np.nanmean(v)), "sd": float(np.nanstd(v, ddof=1)) if len(v) > 1 else 0.0}
            if a is not None:
                row["paired_difference_to_A"] = float(np.nanmean(v - a))
                row["paired_sd"] = float(np.nanstd(v - a, ddof=1)) if len(v) > 1 else 0.0
        return row

    tables = {}
    for f, name in enumerate(names):
        table = {}
        for variant in variants:
            row = {}
            for key in [f"{budget:.2f}" for budget in BUDGETS] + [f"hide_threshold={t}" for t in HIDE_THRESHOLDS]:
                for measure in FIGURES:
                    path = ("files", f, key, measure)
                    row[f"{key}/{measure}"] = stats(values(variant, path), values("A", path))
            key = f"{CHOSEN_BUDGET:.2f}"
            for kind in PERSON:
                row[f"{key}/readable_{kind}"] = {**stats(values(variant, ("files", f, key, "readable", kind))),
                                                 "of": int(per_seed[0][variant]["files"][f][key]["spans"][kind])}
            table[variant] = row
        tables[name] = table
    for variant in variants:
        for measure in ("average_precision", "roc_auc"):
            tables.setdefault("candidate words", {}).setdefault(variant, {})[measure] = stats(values(variant, ("ranking", measure)))
    return tables


def markdown(tables: dict, seeds: int) -> str:
    key = f"{CHOSEN_BUDGET:.2f}"
    lines = []
    ranking_rows = tables["candidate words"]
    for name, table in tables.items():
        if name == "candidate words":
            continue
        lines += ["", f"{name}, at a 10% budget:", "",
                  "| variant | spans readable | diff. to A (paired) | identifiers exposed | person precision | "
                  "diff. to A (paired) | ordinary words hidden | first names / surnames / nicknames readable (of) | "
                  "readable at 0% budget | average precision |",
                  "|---|---|---|---|---|---|---|---|---|---|"]
        for variant, row in table.items():
            r, e, p, o = (row[f"{key}/{m}"] for m in ("residual_span_rate", "identifiers_exposed", "person_precision",
                                                      "over_masking_rate"))
            kinds = " / ".join(f"{row[f'{key}/readable_{k}']['mean']:.1f} ({row[f'{key}/readable_{k}']['of']})" for k in PERSON)
            zero = row["0.00/residual_span_rate"]
            ap = ranking_rows[variant]["average_precision"]
            lines.append(
                f"| {variant} | {100 * r['mean']:.2f}% ± {100 * r['sd']:.2f} | {100 * r['paired_difference_to_A']:+.2f} ± "
                f"{100 * r['paired_sd']:.2f} | {100 * e['mean']:.2f}% | {100 * p['mean']:.1f}% ± {100 * p['sd']:.1f} | "
                f"{100 * p['paired_difference_to_A']:+.1f} ± {100 * p['paired_sd']:.1f} | {100 * o['mean']:.2f}% | {kinds} | "
                f"{100 * zero['mean']:.1f}% ± {100 * zero['sd']:.1f} | {ap['mean']:.3f} ± {ap['sd']:.3f} |")
        lines += ["", f"{name}, mean over {seeds} seeds at a 10% budget, by the combiner's hide threshold "
                  "(spans readable / person precision / ordinary words hidden):", "",
                  "| variant | " + " | ".join(f"{t}" for t in HIDE_THRESHOLDS) + " |",
                  "|---|" + "---|" * len(HIDE_THRESHOLDS)]
        for variant, row in table.items():
            lines.append(f"| {variant} | " + " | ".join(
                f"{100 * row[f'hide_threshold={t}/residual_span_rate']['mean']:.2f}% / "
                f"{100 * row[f'hide_threshold={t}/person_precision']['mean']:.1f}% / "
                f"{100 * row[f'hide_threshold={t}/over_masking_rate']['mean']:.2f}%" for t in HIDE_THRESHOLDS) + " |")
    return "\n".join(lines).lstrip() + f"\n\n(mean ± sd over {seeds} seeds)"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--gold", type=Path, nargs="+", default=None,
                        help="gold files with spans and a donor column, cross-validated together and reported "
                             "file by file (default: the development corpus, and the large development file beside it)")
    parser.add_argument("--seeds", type=int, default=10, help="how many seeds (0, 1, ...)")
    parser.add_argument("--copies", type=int, default=2, help="copies with names replaced, for D")
    parser.add_argument("--variants", nargs="+", default=None,
                        help="which variants to run (A B B1 C D-A D-B D-C; default all, C and D-C when CRFsuite is installed)")
    parser.add_argument("--out", type=Path, default=REPO / "benchmarks" / "results" / "contextual-tagger.json")
    args = parser.parse_args(argv)
    paths = args.gold or [DEV, *([DEV_LARGE] if DEV_LARGE.is_file() else [])]
    if not all(path.is_file() for path in paths):
        print(f"{', '.join(str(path) for path in paths if not path.is_file())} absent: nothing to measure", file=sys.stderr)
        return 0

    from triage import lexicons
    from triage.io.messages import ReadOptions
    from triage.model.gold import labelled_gold
    from triage.model.training import analyse
    from triage.combiner import parse_hide

    has_crf = crf_available()
    variants = args.variants or ["A", "B", "B1", *(["C"] if has_crf else []), "D-A", "D-B", *(["D-C"] if has_crf else [])]
    if "A" not in variants:
        variants = ["A", *variants]
    if not has_crf and any(v in ("C", "D-C") for v in variants):
        parser.error("C needs python-crfsuite (pip install python-crfsuite)")

    def log(text):
        print(text, file=sys.stderr, flush=True)

    gold, files = [], []
    for path in paths:
        messages, has_spans = labelled_gold(path, ReadOptions())
        if not has_spans or not all(m.group for m in messages):
            parser.error(f"{path.name}: a gold file needs a spans column and a donor column")
        for message in messages:  # the donors of two files are never taken for the same person
            message.group = f"{path.name}:{message.group}"
        files.append(np.arange(len(gold), len(gold) + len(messages)))
        gold += messages
    hide = parse_hide("default,LIE,MAR")  # all ten categories, as the evaluation reports them
    started = time.perf_counter()
    analysed = analyse(gold)
    pool = pool_of(analysed)
    log(f"{len(gold):,} messages, {len(pool.y):,} candidate words ({int(pool.y.sum())} in gold spans), "
        f"analysed in {time.perf_counter() - started:.0f} s")
    draw = NameDraw(lexicons.default())
    per_seed = []
    for seed in range(args.seeds):
        per_seed.append(one_seed(gold, analysed, pool, seed, variants, args.copies, draw, hide, files, log))
    table = summary(per_seed, variants, [path.name for path in paths])
    report = {
        "gold": [{"file": path.name, "messages": len(messages)} for path, messages in zip(paths, files)],
        "messages": len(gold),
        "candidate_words": int(len(pool.y)),
        "seeds": args.seeds,
        "folds": FOLDS,
        "copies": args.copies,
        "budgets": list(BUDGETS),
        "chosen_budget": CHOSEN_BUDGET,
        "hide": list(hide),
        "crf": "python-crfsuite" if has_crf else "not installed: C and D-C skipped",
        "machine": {"python": platform.python_version(), "cpu_count": os.cpu_count(), "processor": platform.processor()},
        "summary": table,
        "timing": timing(analysed, pool, variants, 0),
        "per_seed": per_seed,
        "seconds": round(time.perf_counter() - started, 1),
    }
    print(markdown(table, args.seeds))
    print(json.dumps(report["timing"], indent=1))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
