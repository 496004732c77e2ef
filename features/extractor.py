"""The message feature extractor as a scikit-learn transformer: columns of raw SMS -> counts.

It keeps no lexicon inside (a model file must stay small and safe): it uses the process's
default lexicons, and a saved model records their fingerprint.
"""

from __future__ import annotations

import math
from functools import lru_cache

import numpy as np
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.utils.validation import check_is_fitted

from triage.seekhide import components as _seeking  # noqa: F401  (registers the components "fold" and "seek")
from triage.features.counts import feature_names
from triage.lexicons import Lexicons
from triage.pipeline import Context, Pipeline
from triage.seekhide import SeekAndHide

try:  # scikit-learn >= 1.6
    from sklearn.utils.validation import validate_data as _validate_data
except ImportError:  # pragma: no cover - older scikit-learn
    def _validate_data(estimator, X, **kwargs):
        return estimator._validate_data(X, **kwargs)


class MessageFeatures(TransformerMixin, BaseEstimator):
    """Messages -> the counts of a named feature set.

    X is 2-D, one row per message: a column of texts (an array of shape (n, 1), a one-column
    DataFrame), as in the model pipeline. Each column of X is read as texts on its own, so
    several columns give their counts side by side. A missing text (None, NaN) counts as an
    empty message; a value that is not a string is read as its text (`str`).

    Parameters
    ----------
    feature_set : "paper" (the paper's 12 features) or "rich".
    normalise : divide every count by the number of words (the paper tried both).

    Attributes
    ----------
    n_features_in_ : the number of text columns seen by `fit`.
    feature_names_in_ : their names, when `fit` was given a DataFrame with string column names.
    """

    def __init__(self, feature_set: str = "paper", normalise: bool = False):
        self.feature_set = feature_set
        self.normalise = normalise

    def fit(self, X, y=None):
        feature_names(self.feature_set)  # an unknown feature set is refused here
        if not isinstance(self.normalise, (bool, np.bool_)):
            raise ValueError(f"normalise must be True or False, not {self.normalise!r}")
        self._columns(X, reset=True)
        return self

    def transform(self, X):
        check_is_fitted(self)
        columns = self._columns(X, reset=False)
        counts = [self._counts(column) for column in columns]
        if len(counts) == 1:
            return counts[0]
        return np.hstack(counts) if counts else np.zeros((0, 0))

    def get_feature_names_out(self, input_features=None):
        """The feature set's names; with several text columns, each prefixed by its column's
        name (`x0__UpperCase`, ...)."""
        from sklearn.utils.validation import _check_feature_names_in

        check_is_fitted(self)
        names = feature_names(self.feature_set)
        columns = _check_feature_names_in(self, input_features)
        if len(columns) == 1:
            return np.asarray(names, dtype=object)
        return np.asarray([f"{column}__{name}" for column in columns for name in names], dtype=object)

    def _columns(self, X, *, reset: bool) -> list[list[str]]:
        """The columns of X as lists of texts (validated: 2-D, dense, not complex)."""
        X = _validate_data(self, X, reset=reset, dtype=None, accept_sparse=False,
                           ensure_all_finite="allow-nan", ensure_min_samples=1 if reset else 0)
        return [_texts(X[:, j]) for j in range(X.shape[1])]

    def _counts(self, texts: list[str]) -> np.ndarray:
        from triage import lexicons as lexicon_module

        # The preset message-features: folded as classify reads them, so that a disguised name
        # counts as its plain spelling.
        context = Context(seeker=_seeker(lexicon_module.default()), feature_set=self.feature_set,
                          normalise=self.normalise)
        return Pipeline.preset("message-features", context)(texts=texts).features

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.string = True  # texts
        tags.input_tags.allow_nan = True  # a missing message is an empty one
        return tags

    def _more_tags(self):  # scikit-learn < 1.6
        return {"X_types": ["2darray", "string"], "allow_nan": True}


@lru_cache(maxsize=4)
def _seeker(lexicons: Lexicons) -> SeekAndHide:
    return SeekAndHide(lexicons)


def _texts(column) -> list[str]:
    return ["" if v is None or (isinstance(v, float) and math.isnan(v)) else str(v) for v in column.tolist()]
