"""scikit-learn's estimator checks on every learnt component the project writes itself (the
rest of the model, the undersampler and the trees, are imbalanced-learn's and scikit-learn's,
checked by their own projects)."""

import numpy as np
from sklearn.utils.estimator_checks import parametrize_with_checks

from triage.features import FEATURE_SETS, MessageFeatures, messages_column
from triage.model import make_model

# Every check applies (none is listed in `expected_failed_checks`): MessageFeatures reads each
# column of a 2-D X as texts, declares texts and missing values (None, NaN: an empty message) in
# its tags, and validates the rest as any transformer does.
@parametrize_with_checks([MessageFeatures(), MessageFeatures(feature_set="rich", normalise=True)])
def test_scikit_learn_estimator_checks(estimator, check):
    check(estimator)


def test_the_model_pipeline_learns_from_a_column_of_messages():
    ta = [f"Coucou {name}, rdv chez {other} à 18h" for name, other in
          [("Julie", "Marc"), ("Paul", "Léa"), ("Inès", "Hugo"), ("Sarah", "Tom"), ("Chloé", "Noah"),
           ("Emma", "Louis"), ("Zoé", "Jules"), ("Lina", "Adam"), ("Manon", "Nathan"), ("Camille", "Enzo"),
           ("Jade", "Lucas")]]
    nta = [f"ok à {h}h ce soir, on se voit là bas ?" for h in range(11)]
    X, y = messages_column(ta + nta), np.asarray(["TA"] * len(ta) + ["NTA"] * len(nta))
    pipeline = make_model("bagging", "paper", seed=0).fit(X, y)
    assert pipeline.predict_proba(X).shape == (len(ta) + len(nta), 2)
    assert list(pipeline[:1].get_feature_names_out()) == list(FEATURE_SETS["paper"])
