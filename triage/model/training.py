"""Training: the message model from labelled messages, and (when gold spans exist) the word
scorer with the budget policy's calibration (Patel et al. 2013, section 4, and beyond).

Evidence for the calibration and for `triage evaluate` comes from cross-validation: every
message is scored by models that never saw it (folds grouped by donor when the file names
donors), so the resampling and the fitting happen inside each fold only.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from triage import model as _model  # noqa: F401  (registers the component "model")
from triage.combiner import BudgetPolicy, Evidence, EvidenceBatch
from triage.errors import BadInput, BadOption
from triage.features import counts as _counts  # noqa: F401  (registers the component "features")
from triage.model.gold import GoldMessage, folded_gold, gold_on_folded
from triage.pipeline import Context, Pipeline, component
from triage.schema import DEFAULT_HIDE, TA
from triage.seekhide import SeekResult
from triage.seekhide import components as _seeking  # noqa: F401  (register the components "model", "fold"...)


@dataclass
class AnalysedGold:
    """Seek&Hide results, message features and candidate-word features of a gold set, analysed
    folded as classify analyses messages: `gold` holds the folded texts and their gold spans, and
    every offset (results, evidence) points into them; `folding` maps them back onto `written`,
    the texts as written (triage.text.normalise.OffsetMap.span), for the messages that changed."""

    gold: list[GoldMessage]
    results: list[SeekResult]
    X: np.ndarray
    word_rows: list[tuple[list[int], np.ndarray]]  # per message: candidate word indices, features
    feature_set: str
    analysis: object  # the batch Seek&Hide analysis (triage.seekhide.Analysis) of the gold texts
    folding: dict = field(default_factory=dict)  # message index -> OffsetMap, for the folded messages
    written: list[GoldMessage] = field(default_factory=list)  # the gold set as read (texts as written)
    stats: object = None  # how the gold texts spell each word (triage.model.names.CorpusStats)


def analyse(gold: list[GoldMessage], feature_set: str = "rich", lexicons=None, spelling=None,
            reference: int | None = None, off=(), known=None, prior=None) -> AnalysedGold:
    """Seek&Hide, message features and candidate-word features of a gold set. `spelling`,
    `reference` and `prior` are those of the word scorer that will read the word features (a
    kept scorer: its own name-likeness table, corpus size and corpus prior), by default this
    corpus' own. `off` names Seek&Hide steps to switch off (triage.seekhide.STEPS); `known` the
    names a team knows (triage.seekhide.KnownNames). The messages are analysed folded, their
    gold spans mapped onto the folded texts (triage.model.gold.folded_gold)."""
    from triage import lexicons as lexicon_module
    from triage.seekhide import SeekAndHide

    lexicons = lexicons or lexicon_module.default()
    context = Context(seeker=SeekAndHide(lexicons, off=off, known=known), feature_set=feature_set, normalise=False,
                      reference=reference, spelling=spelling, prior=prior)
    batch = Pipeline.preset("gold", context)(texts=[m.text for m in gold], gold=gold)
    results = [batch.analysis.result(i) for i in range(len(gold))]
    return AnalysedGold(batch.folded_gold, results, batch.features, batch.word_rows, feature_set, batch.analysis,
                        batch.folding_maps, gold, batch.stats)


# ---------------------------------------------------------------------- the components of the gold presets


@component("gold-spans", requires=["gold", "folded", "folding_maps"], assigns=["folded_gold"])
def _gold_spans(context, batch) -> None:
    batch.folded_gold = gold_on_folded(batch.gold, batch.folded, batch.folding_maps)


@component("corpus-stats", requires=["texts"], assigns=["stats"])
def _corpus_stats(context, batch) -> None:
    # The texts as written (CorpusStats folds them), as classify's first pass counts them (triage.jobs.corpus_stats).
    from triage.model.names import CorpusStats

    batch.stats = CorpusStats.from_texts(batch.texts, reference=context.reference,
                                         prior=getattr(context, "prior", None))


@component("word-features", requires=["analysis", "stats"], assigns=["word_rows"])
def _word_features(context, batch) -> None:
    from triage.model.names import word_features

    batch.word_rows = word_features(batch.analysis, batch.stats, context.spelling)


@component("word-scores", requires=["texts", "analysis", "word_rows"], assigns=["word_rows", "word_probabilities"])
def _word_scores(context, batch) -> None:
    """With a word scorer, its features of the candidate words (its own name-likeness table and
    corpus size) and their probabilities; without, the candidates as they are, at zero."""
    predictor = context.predictor
    if predictor.word_forest is None:  # word_rows stay as they are
        batch.word_probabilities = [np.zeros(len(indices)) for indices, _ in batch.word_rows]
        return
    from triage.model.names import word_features

    batch.word_rows = word_features(batch.analysis, predictor.corpus_stats(batch.texts), predictor.spelling)
    batch.word_probabilities = [predictor.word_forest.predict_proba(f) if len(i) else np.zeros(0)
                                for i, f in batch.word_rows]


@component("message-evidence", requires=["analysis", "recognised", "word_rows", "scores", "word_probabilities"],
           assigns=["evidence"])
def _message_evidence(context, batch) -> None:
    batch.evidence = evidence_of(batch.analysis, batch.word_rows, batch.scores, batch.word_probabilities,
                                 context.hide, batch.recognised)


def evidence_from(analysed: AnalysedGold, scores: np.ndarray, word_probs: list[np.ndarray],
                  hide=DEFAULT_HIDE) -> list[Evidence]:
    """Per message, what the machines say when the categories `hide` are hidden (as the
    classifier does: triage.recognizers)."""
    return evidence_of(analysed.analysis, analysed.word_rows, scores, word_probs, hide)


def evidence_of(a, word_rows, scores: np.ndarray, word_probs: list[np.ndarray], hide=DEFAULT_HIDE,
                recognised=None) -> list[Evidence]:
    """evidence_from, given the analysis `a` and the candidate words `word_rows` of a gold set
    (and what the recognizers hide, `recognised`, when already found: triage.recognizers.apply)."""
    from triage import recognizers
    from triage.model.names import candidate_tags, default_spelling
    from triage.seekhide import K_WORD, MESSAGE_LABELS

    hidden, labels, recognised = recognised or recognizers.apply(a, frozenset(hide))
    # The token of each candidate word (word_rows give its index among its message's words).
    words = np.flatnonzero(a.kind == K_WORD)
    first_word = np.searchsorted(words, a.bounds[:-1])
    tokens = np.asarray([words[first_word[m] + i] for m, (indices, _) in enumerate(word_rows)
                         for i in indices], dtype=np.int64)
    probs = np.concatenate([np.asarray(p, dtype=float) for p in word_probs]) if word_probs else np.zeros(0)
    tags, probs, _, kept, decides, ends = recognizers.candidates(
        recognised, tokens, candidate_tags(a, tokens, default_spelling(a.labeller.lexicons)), probs, frozenset(hide),
        a.end)
    evidence, k = [], 0
    for m, (score, (indices, _)) in enumerate(zip(scores, word_rows)):
        candidates = [(int(a.start[t]), int(end), tag, float(p))
                      for t, end, tag, p in zip(tokens[k:k + len(indices)].tolist(), ends[k:k + len(indices)].tolist(),
                                                tags[k:k + len(indices)], probs[k:k + len(indices)].tolist())]
        mine = tokens[k:k + len(indices)]
        visible = [(int(a.start[t]), int(a.end[t])) for t in mine[kept[k:k + len(indices)]].tolist()]
        decided = [(int(a.start[t]), int(a.end[t])) for t in mine[decides[k:k + len(indices)]].tolist()]
        k += len(indices)
        evidence.append(Evidence(MESSAGE_LABELS[labels[m]], float(score), hidden[m], candidates, visible, decided))
    return evidence


def cross_validated_evidence(analysed: AnalysedGold, folds: int = 5, seed: int = 0, progress=None,
                             word_scorer=None, hide=DEFAULT_HIDE, shuffle: bool = False) -> list[Evidence]:
    """Evidence for every message from models that never saw it (folds grouped by donor). The
    word scorer is fitted on each training fold's gold spans, or is the fixed `word_scorer`
    (a function rows -> P(name)) learnt elsewhere. `shuffle`: the donors are dealt into folds at
    random (by `seed`), not by size."""
    return cross_validated_evidence_of([analysed], folds, seed, progress, word_scorer, hide, shuffle)[0]


def cross_validated_evidence_of(parts: list[AnalysedGold], folds: int = 5, seed: int = 0, progress=None,
                                word_scorer=None, hide=DEFAULT_HIDE, shuffle: bool = False) -> list[list[Evidence]]:
    """cross_validated_evidence over several gold sets together (each analysed as a corpus of its
    own, their donors distinct): the folds are drawn over all their messages, and the evidence is
    given per gold set."""
    return [evidence_from(part, scores, word_probs, hide) for part, (scores, word_probs)
            in zip(parts, cross_validated_scores_of(parts, folds, seed, progress, word_scorer, shuffle))]


def cross_validated_scores_of(parts: list[AnalysedGold], folds: int = 5, seed: int = 0, progress=None,
                              word_scorer=None, shuffle: bool = False) -> list[tuple[np.ndarray, list[np.ndarray]]]:
    """Per gold set, (the message model's P(TA) of each message, the word scorer's P(name) of each
    message's candidate words), from models that never saw it: cross_validated_evidence_of's
    folds, before the evidence is put together."""
    from sklearn.model_selection import GroupKFold, StratifiedKFold

    together = parts[0] if len(parts) == 1 else AnalysedGold(
        [m for p in parts for m in p.gold], [r for p in parts for r in p.results], np.vstack([p.X for p in parts]),
        [row for p in parts for row in p.word_rows], parts[0].feature_set, None)
    labels = np.asarray([m.label for m in together.gold])
    groups = [m.group for m in together.gold]
    if len(set(groups)) >= folds:
        splits = (dealt_folds(groups, folds, seed) if shuffle
                  else GroupKFold(n_splits=folds).split(together.X, labels, groups))
    else:
        splits = StratifiedKFold(n_splits=folds, shuffle=True, random_state=seed).split(together.X, labels)
    scores = np.zeros(len(labels))
    word_probs = [np.zeros(len(indices)) for indices, _ in together.word_rows]
    for train, test in splits:
        scores[test] = message_scores(together.X[train], labels[train], together.X[test], together.feature_set, seed)
        # The fold's candidate words read in one call: a call per message costs more than the
        # reading itself.
        with_words = [i for i in test if len(together.word_rows[i][0])]
        rows = np.vstack([together.word_rows[i][1] for i in with_words]) if with_words else None
        if with_words and word_scorer is not None:
            probs = word_scorer(rows)
        elif with_words:
            probs = fit_word_scorer(together, train, seed).probability(
                rows, [s for i in with_words for s in candidate_spellings(together, i)])
        if with_words:
            cuts = np.cumsum([len(together.word_rows[i][0]) for i in with_words])[:-1]
            for i, p in zip(with_words, np.split(probs, cuts)):
                word_probs[i] = p
        if progress:
            progress()
    found, start = [], 0
    for part in parts:
        end = start + len(part.gold)
        found.append((scores[start:end], word_probs[start:end]))
        start = end
    return found


def message_scores(X_train: np.ndarray, y_train: np.ndarray, X: np.ndarray, feature_set: str, seed: int) -> np.ndarray:
    """The message model's P(TA) of the rows `X`, the model (triage.model.make_model, bagging,
    its features already computed) fitted on `X_train`, `y_train`."""
    from imblearn.pipeline import Pipeline

    from triage.model import make_model

    message_model = Pipeline(make_model("bagging", feature_set, seed=seed).steps[1:])
    message_model.fit(X_train, y_train)
    return message_model.predict_proba(X)[:, list(message_model.classes_).index(TA)]


def drawn_sample(n: int, size: int | None, seed: int) -> np.ndarray:
    """The indices, in order, of `size` of `n` items drawn at random by `seed` (all of them
    without a size, or with one as large): the messages a team labels."""
    if size is None or size >= n:
        return np.arange(n)
    return np.sort(np.random.default_rng(seed).choice(n, size, replace=False))


def labels_only_scores(analysed: AnalysedGold, size: int, seed: int = 0) -> np.ndarray:
    """The message model's P(TA) of every message of a gold set, the model trained from the labels
    alone of `size` of its messages (all of them when it has fewer), drawn at random by `seed`: what
    a team that labels a sample of its corpus and trains from labels alone gets for its message
    model (the word scorer is not learnt from labels: `triage train` keeps another model's). A
    one-line BadOption when the messages drawn lack a class."""
    from triage.model import check_training_labels

    drawn = drawn_sample(len(analysed.gold), size, seed)
    labels = np.asarray([analysed.gold[i].label for i in drawn.tolist()])
    try:
        check_training_labels(labels.tolist())
    except BadInput as error:
        raise BadOption(f"--labelled {size}: the messages drawn cannot train a model ({error})") from None
    return message_scores(analysed.X[drawn], labels, analysed.X, analysed.feature_set, seed)


def dealt_folds(groups: list[str], folds: int, seed: int) -> list[tuple[np.ndarray, np.ndarray]]:
    """(train, test) message indices of `folds` folds, the donors (`groups`) dealt into them in a
    random order drawn from `seed`, one by one in turn."""
    names, inverse = np.unique(np.asarray(groups, dtype=object), return_inverse=True)
    fold_of = np.empty(len(names), dtype=np.int64)
    fold_of[np.random.default_rng(seed).permutation(len(names))] = np.arange(len(names)) % folds
    message_fold = fold_of[inverse.ravel()]
    return [(np.flatnonzero(message_fold != k), np.flatnonzero(message_fold == k)) for k in range(folds)]


def word_training_rows(analysed: AnalysedGold, messages) -> tuple[np.ndarray, np.ndarray]:
    from triage.model.names import WORD_FEATURES, gold_targets

    rows, targets = [], []
    for i in messages:
        indices, features = analysed.word_rows[i]
        if len(indices):
            rows.append(features)
            targets += gold_targets(analysed.results[i], indices, analysed.gold[i].spans)
    if not rows:
        return np.zeros((0, len(WORD_FEATURES))), np.zeros(0)
    return np.vstack(rows), np.asarray(targets)


def candidate_spellings(analysed: AnalysedGold, message: int) -> list[str]:
    """The folded spellings of a message's candidate words, as classify reads them for the letter
    model (fold(spelling_key(word)): triage.seekhide.spelling_batch.folded_keys)."""
    from triage.lexicons import fold, spelling_key

    indices = analysed.word_rows[message][0]
    words, text = analysed.results[message].words, analysed.gold[message].text
    return [fold(spelling_key(text[words[i].start:words[i].end])) for i in indices]


@dataclass
class WordScorer:
    """A word scorer fitted on gold spans: the gradient-boosted trees over the candidate rows, and
    the letter model (triage.model.letters) whose log-odds fill the rows' `spelling` column."""

    model: object  # fitted make_word_model
    letters: object | None  # fitted LetterModel, or None (the lexicons' trigrams fill the column)

    def probability(self, rows: np.ndarray, spellings: list[str]) -> np.ndarray:
        """P(name) of candidate rows, whose words are `spellings` (candidate_spellings)."""
        from threadpoolctl import threadpool_limits

        if self.model is None or len(self.model.classes_) < 2:  # nothing learnt of names
            return np.zeros(len(rows))
        rows = _with_letters(rows, self.letters.decision_function(spellings)) if self.letters is not None else rows
        with threadpool_limits(limits=1, user_api="openmp"):
            return self.model.predict_proba(rows)[:, list(self.model.classes_).index(1)]


def _with_letters(rows: np.ndarray, scores: np.ndarray) -> np.ndarray:
    from triage.model.names import WORD_FEATURES

    rows = np.array(rows, dtype=float)
    rows[:, WORD_FEATURES.index("spelling")] = scores
    return rows


# The letter model's scores that train the trees come from letter models that never saw the word
# (folds grouped by donor), as the trees will read the scores of unseen words.
LETTER_FOLDS = 5
# The distinct names (folded spellings of positive candidate words) a letter model needs to learn from;
# with fewer, the trees read the lists' trigram contrast instead. In donor-grouped cross-validation,
# about 1,100 names (the two development files of 88milSMS together) left fewer names readable than the
# trigrams, about 170 (the small file alone) more: 500 lies between, and was not tuned finer.
LETTER_NAMES = 500


def fit_word_scorer(analysed: AnalysedGold, messages, seed: int = 0) -> WordScorer:
    """A WordScorer fitted on the candidate words of `messages`."""
    from triage.model.letters import LetterModel
    from triage.model.names import fitted_word_model

    messages = [i for i in messages if len(analysed.word_rows[i][0])]
    X, y = word_training_rows(analysed, messages)
    if len(set(y.tolist())) < 2:  # trees of one class (a model file needs them), no letters to learn
        return WordScorer(fitted_word_model(X, y, seed) if len(y) else None, None)
    spellings = [s for i in messages for s in candidate_spellings(analysed, i)]
    if len({spelling for spelling, target in zip(spellings, y.tolist()) if target}) < LETTER_NAMES:
        return WordScorer(fitted_word_model(X, y, seed), None)
    groups = np.asarray([analysed.gold[i].group for i in messages for _ in analysed.word_rows[i][0]], dtype=object)
    if len(set(groups.tolist())) < LETTER_FOLDS:
        groups = np.asarray([i for i in messages for _ in analysed.word_rows[i][0]], dtype=object)
    scores = np.zeros(len(y))
    for train, test in dealt_folds(groups.tolist(), LETTER_FOLDS, seed):
        scores[test] = LetterModel(seed=seed).fit([spellings[k] for k in train], y[train]).decision_function(
            [spellings[k] for k in test])
    letters = LetterModel(seed=seed).fit(spellings, y)
    return WordScorer(fitted_word_model(_with_letters(X, scores), y, seed), letters)


# ---------------------------------------------------------------------- train


def check_kind(kind: str) -> None:
    from triage.model import KINDS

    if kind == "baseline":
        raise BadOption("the baseline is for reports only; train a tree or bagging model")
    if kind not in KINDS:
        raise BadOption(f"unknown model kind {kind!r}; choose tree or bagging")


def check_feature_set(feature_set: str) -> None:
    from triage.features import FEATURE_SETS

    if feature_set not in FEATURE_SETS:
        raise BadOption(f"unknown feature set {feature_set!r}; choose one of {', '.join(FEATURE_SETS)}")


def train(gold: list[GoldMessage], with_spans: bool, *, kind: str = "bagging", feature_set: str = "rich",
          normalise: bool = False, seed: int = 0, kept_scorer=None, kept_source: str = "embedded model"
          ) -> tuple[object, dict]:
    """(the fitted message model, the extras a model file keeps beside it). With gold spans, the
    word scorer is learnt from them; from message labels alone (what most teams can afford to
    annotate), the word scorer of `kept_scorer` (a triage.model.Predictor, by default the
    embedded model's) is kept. Either way the expert budget is calibrated on these messages,
    so the budget policy routes them. Normalised counts get the paper's policy only."""
    from triage import model

    check_kind(kind)
    # The message model reads the messages folded, as classify does (its features come from the
    # analysis of the folded text).
    texts, labels = [m.text for m in folded_gold(gold)[0]], [m.label for m in gold]
    model.check_training_labels(labels)
    fitted = model.train(texts, labels, kind=kind, feature_set=feature_set, normalise=normalise, seed=seed)
    if normalise:  # the budget calibration is made on the default counts
        return fitted, {}
    if with_spans:
        return fitted, train_word_scorer(gold, feature_set, seed)
    return fitted, calibrate_kept_scorer(gold, feature_set, seed, kept_scorer or model.load_predictor(
        model.default_model_path()), kept_source)


def train_word_scorer(gold: list[GoldMessage], feature_set: str, seed: int) -> dict:
    """The word scorer and the budget calibration, from gold spans: risks of the training
    messages under cross-validation give the quantiles that turn a budget into a threshold."""
    from triage import lexicons
    from triage.model import names

    analysed = analyse(gold, feature_set)
    evidence = cross_validated_evidence(analysed, folds=5, seed=seed)
    policy = BudgetPolicy()
    risks = policy.decide_batch(EvidenceBatch.from_evidence(evidence)).risk
    scorer = fit_word_scorer(analysed, range(len(gold)), seed)
    return {
        "word_model": scorer.model,
        "spelling": names.default_spelling(lexicons.default()).learnt(scorer.letters),
        "corpus_prior": names.corpus_prior(analysed.stats, lexicons.default()),
        "risk_quantiles": np.quantile(risks, np.linspace(0, 1, 1001)),
        "policy": {"name": "budget", "hide_threshold": policy.hide_threshold, "score_weight": policy.score_weight},
    }


def calibrate_kept_scorer(gold: list[GoldMessage], feature_set: str, seed: int, kept, source: str) -> dict:
    """The budget calibration for a model trained from labels alone: the word scorer of `kept`
    (learnt elsewhere from gold spans) reads these messages, the new message model scores them
    under cross-validation, and the quantiles of their risks turn a budget into a threshold.
    Without this, such a model falls back on the paper's Table 2, which sends almost no message
    to a human and leaves about a third of the names readable."""
    if kept.word_forest is None:
        raise BadOption(f"the {source} has no word scorer to keep: train with gold spans (a 'spans' column)")
    analysed = analyse(gold, feature_set, spelling=kept.spelling, reference=kept.word_scorer_size,
                       prior=kept.corpus_prior)
    evidence = cross_validated_evidence(analysed, folds=5, seed=seed, word_scorer=kept.word_forest.predict_proba)
    settings = {k: v for k, v in (kept.metadata.get("policy") or {}).items() if k != "name"}
    settings.pop("risk_threshold", None)
    policy = BudgetPolicy(**settings)
    risks = policy.decide_batch(EvidenceBatch.from_evidence(evidence)).risk
    return {
        "word_model": kept.word_forest,
        "spelling": kept.spelling,
        "corpus_prior": kept.corpus_prior,
        "risk_quantiles": np.quantile(risks, np.linspace(0, 1, 1001)),
        "policy": {"name": "budget", "hide_threshold": policy.hide_threshold, "score_weight": policy.score_weight},
        "word_scorer": {"source": source, "training_size": kept.word_scorer_size,
                        "fingerprint": str(kept.metadata.get("metadata_sha256", ""))[:12]},
    }
