"""The message feature extractor as a scikit-learn transformer: raw SMS -> counts.

It keeps no lexicon inside (a model file must stay small and safe): it uses the process's
default lexicons, and a saved model records their fingerprint.
"""

from __future__ import annotations

import math
from functools import lru_cache

import numpy as np
from sklearn.base import BaseEstimator, TransformerMixin

from triage.features.counts import feature_names, message_counts
from triage.lexicons import Lexicons
from triage.normalise import fold_batch
from triage.seekhide import SeekAndHide


class MessageFeatures(TransformerMixin, BaseEstimator):
    """Raw messages -> the counts of a named feature set.

    Parameters
    ----------
    feature_set : "paper" (the paper's 12 features) or "rich".
    normalise : divide every count by the number of words (the paper tried both).
    """

    def __init__(self, feature_set: str = "paper", normalise: bool = False):
        self.feature_set = feature_set
        self.normalise = normalise

    def fit(self, X, y=None):
        self.feature_names_in_ = None
        self.n_features_in_ = 1
        self.names_ = feature_names(self.feature_set)
        return self

    def transform(self, X):
        from triage import lexicons as lexicon_module

        # Folded as classify reads them, so that a disguised name counts as its plain spelling.
        folded, _ = fold_batch(_texts(X))
        analysis = _seeker(lexicon_module.default()).analyse(folded)
        return message_counts(analysis, self.feature_set, self.normalise)

    def get_feature_names_out(self, input_features=None):
        return np.asarray(feature_names(self.feature_set), dtype=object)


@lru_cache(maxsize=4)
def _seeker(lexicons: Lexicons) -> SeekAndHide:
    return SeekAndHide(lexicons)


def _texts(X):
    if hasattr(X, "iloc"):  # a pandas Series or one-column DataFrame
        X = X.iloc[:, 0] if getattr(X, "ndim", 1) == 2 else X
    X = np.asarray(X, dtype=object).ravel()
    return ["" if v is None or (isinstance(v, float) and math.isnan(v)) else str(v) for v in X]
