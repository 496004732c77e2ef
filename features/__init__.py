"""Message features for the learnt model (Patel et al. 2013, section 4).

`MessageFeatures` (features/extractor.py) is a scikit-learn transformer from raw messages to
counts; the counting itself is in features/counts.py. Feature sets are named (features/sets.py):
`paper` is the paper's twelve features (Table 5), `rich` adds what Seek&Hide and the
detectors know about the message.
"""

from triage.features.counts import feature_names
from triage.features.sets import FEATURE_SETS

__all__ = ["FEATURE_SETS", "MessageFeatures", "feature_names"]


def __getattr__(name):
    # The transformer imports scikit-learn (2 s): only when asked for.
    if name == "MessageFeatures":
        from triage.features.extractor import MessageFeatures

        return MessageFeatures
    raise AttributeError(name)
