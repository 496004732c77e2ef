"""Message features for the learnt model (Patel et al. 2013, section 4).

`MessageFeatures` (features/extractor.py) is a scikit-learn transformer from a column of raw
messages (`messages_column`) to counts; the counting itself is in features/counts.py. Feature sets are named (features/sets.py):
`paper` is the paper's twelve features (Table 5), `rich` adds what Seek&Hide and the
detectors know about the message.
"""

import numpy as np

from triage.features.counts import feature_names
from triage.features.sets import FEATURE_SETS

__all__ = ["FEATURE_SETS", "MessageFeatures", "feature_names", "messages_column"]


def messages_column(texts) -> np.ndarray:
    """Messages as the one-column 2-D array (n, 1) that MessageFeatures and the model take."""
    column = np.empty((len(texts), 1), dtype=object)
    column[:, 0] = list(texts)
    return column


def __getattr__(name):
    # The transformer imports scikit-learn (2 s): only when asked for.
    if name == "MessageFeatures":
        from triage.features.extractor import MessageFeatures

        return MessageFeatures
    raise AttributeError(name)
