"""How much a word's letters look like a name, learnt from gold: a logistic model over the letter
n-grams of the candidate words (two to four letters of the folded spelling, its start and end
marked: `^ed`, `yta$`).

The lexicons say whether a spelling is a known first name; the corpus says how it is written.
Neither says anything of a name no list holds (Edyta, Desislava, Bacar) written in lower case,
nor tells such a name from the SMS spellings of ordinary words around it (`mieu`, `jvai`,
`tkt`), which are unknown to the lists too. Their letters do: the word scorer reads this
model's score as one of its features (`letters`).

The model keeps no spelling: an n-gram is kept as an integer that packs its folded letters
(ASCII, 7 bits each) and its length, and only n-grams met in at least two distinct spellings.
Scoring a batch of spellings is numpy work over their code points (no scikit-learn at classify
time); fitting uses scikit-learn's LogisticRegression, seeded.
"""

from __future__ import annotations

import numpy as np

from triage.lexicons import fold
from triage.pipeline.arrays import unique
from triage.seekhide.spelling_batch import fold_many

# The n-gram lengths read, and the marks of a word's start and end.
LENGTHS = (2, 3, 4)
_START, _END = ord("^"), ord("$")


def gram_keys(spellings: list[str]) -> tuple[np.ndarray, np.ndarray]:
    """(row, key) of each distinct letter n-gram of each spelling: `row` indexes `spellings`,
    `key` packs the n-gram's folded letters and its length (equal keys, equal n-grams), sorted
    by key then row."""
    packed = _packed_grams(spellings)
    return (packed & _ROW_MASK).astype(np.int64), packed >> _ROW_BITS


def _packed_grams(spellings: list[str]) -> np.ndarray:
    """gram_keys of `spellings` as one sorted uint64 each: the key, then the row in the low
    _ROW_BITS bits. The spellings are read as one array of codes, each between ^ and $; the
    n-grams of every length are worked out at every position of it at once (the n-gram of length
    n at a position is that of length n - 1 there and the next code), and kept where they lie
    inside one spelling."""
    folded = fold_many(spellings)  # ASCII: a byte per character
    lengths = np.fromiter(map(len, folded), np.int64, len(folded)) + 2
    marked = f"^{'$^'.join(folded)}$" if folded else ""  # each spelling between ^ and $
    codes = np.frombuffer(marked.encode("ascii", "replace"), np.uint8).astype(np.uint64)
    size = len(codes)
    # Per position: its spelling, and how many codes of that spelling start there or after it.
    row = np.repeat(np.arange(len(folded), dtype=np.uint64), lengths)
    left = np.repeat(np.cumsum(lengths), lengths) - np.arange(size)
    packed = []
    key = np.zeros(size, np.uint64)
    for n in range(1, max(LENGTHS) + 1):
        if n > size:
            break
        key = (key[: size - n + 1] << np.uint64(7)) | codes[n - 1 :]
        if n in LENGTHS:
            inside = left[: size - n + 1] >= n
            packed.append(((key[inside] | np.uint64(n << (7 * n))) << _ROW_BITS) | row[: size - n + 1][inside])
    # Sorted by key then row, as one integer each: a key takes at most 31 bits (7 a letter, 3 for
    # the length), a row 32 (a list of 2**32 spellings would not fit in memory). One sort of
    # integers costs a fraction of an argsort and its gathers; an n-gram a word writes twice
    # ("lolo") is kept once.
    return unique(np.concatenate(packed)) if packed else np.zeros(0, np.uint64)


_ROW_BITS, _ROW_MASK = np.uint64(32), np.uint64((1 << 32) - 1)  # gram_keys' packing


class LetterModel:
    """A logistic regression over the presence of each letter n-gram (gram_keys), class-balanced:
    `fit(spellings, y)` with y 1 for a name and 0 for an ordinary word, then `decision_function`
    (log-odds) or `predict_proba`. Only n-grams of at least `min_count` distinct training spellings
    are kept, so no spelling is kept whole. Fitted, it is three arrays (`arrays`/`from_arrays`): the kept keys, sorted, their
    weights, and the intercept."""

    def __init__(self, C: float = 1.0, min_count: int = 2, seed: int = 0):
        self.C = C
        self.min_count = min_count
        self.seed = seed

    def get_params(self, deep: bool = True) -> dict:
        return {"C": self.C, "min_count": self.min_count, "seed": self.seed}

    def fit(self, spellings: list[str], y) -> LetterModel:
        from scipy.sparse import csr_matrix
        from sklearn.linear_model import LogisticRegression

        y = np.asarray(y, dtype=np.int64)
        if len(y) != len(spellings):
            raise ValueError(f"{len(spellings)} spellings but {len(y)} targets")
        row, key = gram_keys(list(spellings))
        # Kept: the n-grams of at least min_count distinct spellings (a word's own letters, "^jo$",
        # are never kept alone).
        marked = np.asarray([fold(spelling) for spelling in spellings], dtype=object)
        _, first = np.unique(marked.astype(str), return_index=True)
        is_first = np.zeros(len(spellings), bool)
        is_first[first] = True
        kept, column = np.unique(key, return_inverse=True)
        counts = np.bincount(column, weights=is_first[row], minlength=len(kept))
        frequent = counts >= self.min_count
        columns = np.cumsum(frequent) - 1
        used = frequent[column]
        self.keys_ = kept[frequent]
        if len(set(y.tolist())) < 2 or not len(self.keys_):
            self.weights_ = np.zeros(len(self.keys_))
            self.intercept_ = float(np.log((y.sum() + 0.5) / (len(y) - y.sum() + 0.5))) if len(y) else 0.0
            return self
        X = csr_matrix((np.ones(int(used.sum())), (row[used], columns[column[used]])),
                       shape=(len(spellings), len(self.keys_)))
        model = LogisticRegression(C=self.C, class_weight="balanced", max_iter=3000, random_state=self.seed)
        model.fit(X, y)
        self.weights_ = model.coef_[0].astype(float)
        self.intercept_ = float(model.intercept_[0])
        return self

    def decision_function(self, spellings: list[str]) -> np.ndarray:
        """The log-odds that each spelling is a name, from its letters alone. The kept keys are
        looked up in the n-grams (both sorted: each kept key's run of equal n-grams), whose
        weights are then added up per spelling in the order of gram_keys."""
        packed = _packed_grams(list(spellings))
        key = packed >> _ROW_BITS
        first = np.searchsorted(key, self.keys_, "left")
        count = np.searchsorted(key, self.keys_, "right") - first
        met = np.flatnonzero(count)
        first, count = first[met], count[met]
        # The n-grams of the kept keys, in order (the runs follow each other as the keys do).
        at = np.arange(int(count.sum())) + np.repeat(first - (np.cumsum(count) - count), count)
        row = (packed[at] & _ROW_MASK).astype(np.intp)
        total = np.bincount(row, weights=np.repeat(self.weights_[met], count), minlength=len(spellings))
        return total + self.intercept_

    def predict_proba(self, spellings: list[str]) -> np.ndarray:
        p = 1.0 / (1.0 + np.exp(-self.decision_function(spellings)))
        return np.column_stack([1.0 - p, p])

    def arrays(self) -> dict[str, np.ndarray]:
        return {"keys": self.keys_, "weights": self.weights_, "intercept": np.asarray([self.intercept_])}

    @classmethod
    def from_arrays(cls, arrays) -> LetterModel:
        model = cls()
        model.keys_ = np.asarray(arrays["keys"], dtype=np.uint64)
        model.weights_ = np.asarray(arrays["weights"], dtype=float)
        model.intercept_ = float(np.asarray(arrays["intercept"])[0])
        return model
