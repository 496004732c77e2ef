"""Message features for the learnt model (Patel et al. 2013, section 4).

`MessageFeatures` is a scikit-learn transformer from raw messages to counts. Feature sets
are named: `paper` is the paper's twelve features (Table 5), `rich` adds what Seek&Hide and
the detectors know about the message (see features/sets.py).
"""

from features.extractor import MessageFeatures, feature_names
from features.sets import FEATURE_SETS

__all__ = ["FEATURE_SETS", "MessageFeatures", "feature_names"]
