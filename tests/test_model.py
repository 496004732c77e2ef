import json

import numpy as np
import pytest

from triage import model
from triage.io import InputError

from conftest import rewrite_model

TA_TEXTS = [
    "rdv avec Julie à 18h", "Coucou Patrice ça va ?", "appelle Kevin au 06 12 34 56 78",
    "je suis chez Dubois", "bisous Sophie", "tu as vu Nicolas hier ?", "Karim arrive demain",
    "Mme Petit a appelé", "dis à Chloé de venir", "Léa et Hugo sont là", "merci Thomas !",
    "envoie à marie.dupont@example.fr", "Camille vient ce soir",
]
NTA_TEXTS = [
    "ok", "jarrive dans 5 min", "mdr t serieux", "bonne nuit", "on mange quoi ce soir ?",
    "je suis dans le bus", "tkt ça va aller", "il fait beau aujourd'hui", "a plus tard",
    "bon courage pour demain", "j'ai fini le boulot", "tu peux acheter du pain ?", "trop bien",
]


@pytest.fixture(scope="module")
def small_data():
    texts = TA_TEXTS + NTA_TEXTS
    labels = ["TA"] * len(TA_TEXTS) + ["NTA"] * len(NTA_TEXTS)
    return texts, labels


def test_training_is_deterministic_for_a_seed(small_data):
    texts, labels = small_data
    a = model.train(texts, labels, seed=3).predict_proba(np.asarray(texts, dtype=object))
    b = model.train(texts, labels, seed=3).predict_proba(np.asarray(texts, dtype=object))
    assert np.array_equal(a, b)


@pytest.mark.parametrize("kind", ["tree", "bagging"])
def test_the_numpy_forest_predicts_exactly_like_scikit_learn(small_data, kind):
    texts, labels = small_data
    fitted = model.train(texts, labels, kind=kind, feature_set="rich", seed=1)
    X = fitted.named_steps["features"].transform(texts)
    expected = fitted.named_steps["classifier"].predict_proba(X)[:, 1]
    forest = model.compile_forest(fitted.named_steps["classifier"])
    assert np.allclose(forest.predict_proba(X), expected)


def test_a_class_with_fewer_than_ten_examples_is_refused(small_data):
    texts, labels = small_data
    with pytest.raises(InputError, match="at least 10 messages of each class"):
        model.train(texts[:5] + texts[13:], labels[:5] + labels[13:])


@pytest.fixture(scope="module")
def saved_model(tmp_path_factory, small_data):
    texts, labels = small_data
    path = tmp_path_factory.mktemp("model") / "m.triage"
    fitted = model.train(texts, labels, seed=0)
    model.save_model(fitted, path, training_size=len(texts), class_counts={"TA": 13, "NTA": 13}, seed=0)
    return path


def test_model_file_records_its_provenance(saved_model):
    predictor = model.load_predictor(saved_model)
    meta = predictor.metadata
    assert meta["feature_set"] == "paper" and meta["training_size"] == 26
    assert meta["class_counts"] == {"TA": 13, "NTA": 13}
    assert {"scikit-learn", "imbalanced-learn", "numpy"} <= set(meta["versions"])
    estimator, _ = model.load_estimator(saved_model)
    assert estimator.named_steps["classifier"].n_estimators == model.N_ESTIMATORS


def test_a_tampered_model_file_is_refused(saved_model, tmp_path):
    tampered = tmp_path / "tampered.triage"

    def swap_forest(members):
        members["forest.npz"] = members["forest.npz"][:-10] + b"0123456789"

    rewrite_model(saved_model, tampered, swap_forest)
    with pytest.raises(InputError, match="damaged or was modified"):
        model.load_predictor(tampered)


def test_types_outside_the_allow_list_are_refused(saved_model, tmp_path, monkeypatch):
    monkeypatch.setattr(model, "ALLOWED_TYPES", frozenset())
    with pytest.raises(InputError, match="outside the allow-list"):
        model.load_estimator(saved_model)


def test_a_model_built_with_other_lexicons_is_refused(saved_model, tmp_path):
    other = tmp_path / "other.triage"

    def other_lexicons(members):
        meta = json.loads(members["metadata.json"])
        meta["lexicon_fingerprint"] = "0000000000000000"
        members["metadata.json"] = json.dumps(meta).encode()

    rewrite_model(saved_model, other, other_lexicons)
    with pytest.raises(InputError, match="other lexicons"):
        model.load_predictor(other)


@pytest.mark.parametrize("content", [b"", b"not a zip at all", b"PK\x03\x04broken"])
def test_a_foreign_or_corrupt_file_is_refused(tmp_path, content):
    path = tmp_path / "foreign.triage"
    path.write_bytes(content)
    with pytest.raises(InputError, match="not an sms-triage model file"):
        model.load_predictor(path)


def test_triage_train_through_the_cli(cli, tmp_path, small_data):
    texts, labels = small_data
    source = tmp_path / "labelled.csv"
    import csv

    with source.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["text", "label"])
        writer.writerows(zip(texts, labels))
    out = tmp_path / "m.triage"
    result = cli("train", source, "-o", out, "--kind", "tree")
    assert result.exit_code == 0, result.output
    assert "tree model on 26 messages (13 TA, 13 NTA)" in result.output
    assert cli("train", source, "-o", out).exit_code == 1  # exists: --force needed
