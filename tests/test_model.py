import json
import re
import zipfile

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from triage import model
from triage.features import messages_column
from triage.errors import InputError

from conftest import edit_arrays, rewrite_model, with_checksums

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
    a = model.train(texts, labels, seed=3).predict_proba(messages_column(texts))
    b = model.train(texts, labels, seed=3).predict_proba(messages_column(texts))
    assert np.array_equal(a, b)


@pytest.mark.parametrize("kind", ["tree", "bagging"])
def test_the_numpy_forest_predicts_exactly_like_scikit_learn(small_data, kind):
    texts, labels = small_data
    fitted = model.train(texts, labels, kind=kind, feature_set="rich", seed=1)
    X = fitted.named_steps["features"].transform(messages_column(texts))
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
    data, _ = model.model_bytes(fitted, training_size=len(texts), class_counts={"TA": 13, "NTA": 13}, seed=0)
    path.write_bytes(data)
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
        with_checksums(members)

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


# ------------------------------------------------------------ hostile model files


def _edit_metadata(change, *, seal: bool):
    def edit(members):
        meta = json.loads(members["metadata.json"])
        change(meta)
        members["metadata.json"] = json.dumps(meta).encode()
        if seal:
            with_checksums(members)
    return edit


def test_changed_settings_are_refused_even_when_they_look_valid(tmp_path):
    """The policy once lived outside the checksums: `paper` in place of `budget` released
    29 of the demo's 90 gold spans instead of 6, silently."""
    def to_paper(meta):
        meta["policy"] = {"name": "paper"}

    path = rewrite_model(model.default_model_path(), tmp_path / "m.triage", _edit_metadata(to_paper, seal=False))
    with pytest.raises(InputError, match="metadata.json does not match its checksum"):
        model.load_predictor(path)


@pytest.mark.parametrize("change, message", [
    (lambda m: m["policy"].update(hide_threshold=float("nan")), "policy setting hide_threshold"),
    (lambda m: m["policy"].update(name="yolo"), "policy"),
    (lambda m: m.update(training_size=-5), "training size"),
    (lambda m: m.update(feature_set="secret"), "feature set"),
    (lambda m: m.update(format="sms-triage-model/1"), "older sms-triage"),
])
def test_settings_out_of_range_are_one_line_even_with_valid_checksums(tmp_path, change, message):
    path = rewrite_model(model.default_model_path(), tmp_path / "m.triage", _edit_metadata(change, seal=True))
    with pytest.raises(InputError, match=message):
        model.load_predictor(path)


def _first_inner(arrays) -> int:
    return int(np.flatnonzero(arrays["left"] >= 0)[0])


FOREST_ATTACKS = {
    "a depth that never ends": (lambda a: a.update(depth=np.asarray([10**9])), "depth"),
    "a cycle": (lambda a: a["left"].__setitem__(_first_inner(a), _first_inner(a)), "cycle"),
    "a child out of range": (lambda a: a["right"].__setitem__(_first_inner(a), 10**12), "out of range"),
    "a NaN threshold": (lambda a: a["threshold"].__setitem__(_first_inner(a), np.nan), "not finite"),
    # a forest's leaves hold probabilities, gradient boosting's values to add up: neither may be infinite
    "an infinite leaf": (lambda a: a["proba"].__setitem__(0, np.inf), "outside \\[0, 1\\]|not finite"),
    "a way of adding up the trees that does not exist": (lambda a: a.update(link=np.asarray(["cube"])), "unreadable"),
    "a feature that does not exist": (lambda a: a["feature"].__setitem__(_first_inner(a), 999), "features that do not exist"),
    "arrays of different sizes": (lambda a: a.update(proba=a["proba"][:-1]), "sizes"),
    "a shallow declared depth": (lambda a: a.update(depth=np.asarray([1])), "deeper than its declared depth"),
}


@pytest.mark.parametrize("member", ["forest.npz", "names.npz"])
@pytest.mark.parametrize("attack", sorted(FOREST_ATTACKS))
def test_a_forest_that_lies_is_one_line(tmp_path, member, attack):
    change, message = FOREST_ATTACKS[attack]
    path = rewrite_model(model.default_model_path(), tmp_path / "m.triage", edit_arrays(member, change))
    with pytest.raises(InputError, match=message):
        model.load_predictor(path)


def test_a_decompression_bomb_is_refused_before_it_inflates(tmp_path, monkeypatch):
    import zipfile

    monkeypatch.setattr(model, "MAX_MEMBER_BYTES", 4 * 2**20)
    bomb = tmp_path / "bomb.triage"
    with zipfile.ZipFile(model.default_model_path()) as source, zipfile.ZipFile(bomb, "w", zipfile.ZIP_DEFLATED) as out:
        for name in source.namelist():
            out.writestr(name, source.read(name))
        out.writestr("padding.bin", bytes(8 * 2**20))  # 8 MiB of zeros in a few kB
    with pytest.raises(InputError, match="would inflate to 8,388,608 bytes"):
        model.load_predictor(bomb)


def test_a_policy_switched_and_re_signed_is_refused(tmp_path):
    """Checksums can be recomputed by anyone: the policy must still agree with the file's
    word scorer, as `triage train` writes it."""
    def to_paper(meta):
        meta["policy"] = {"name": "paper"}

    path = rewrite_model(model.default_model_path(), tmp_path / "m.triage", _edit_metadata(to_paper, seal=True))
    with pytest.raises(InputError, match="policy does not match its word scorer"):
        model.load_predictor(path)


def test_a_format_1_file_says_to_retrain(tmp_path):
    def old(meta):
        meta["format"] = "sms-triage-model/1"
        meta.pop("metadata_sha256", None)

    path = rewrite_model(model.default_model_path(), tmp_path / "old.triage", _edit_metadata(old, seal=False))
    with pytest.raises(InputError, match="older sms-triage .* retrain it with `triage train`"):
        model.load_predictor(path)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(flips=st.lists(st.tuples(st.floats(0, 1, exclude_max=True), st.integers(1, 255)), min_size=1, max_size=3))
def test_any_damaged_byte_gives_the_same_decisions_or_one_line(saved_model, flips):
    data = bytearray(saved_model.read_bytes())
    for where, mask in flips:
        data[int(where * len(data))] ^= mask
    damaged = saved_model.parent / "damaged.triage"
    damaged.write_bytes(bytes(data))
    X = np.arange(60, dtype=float).reshape(5, 12) % 4
    try:
        predictor = model.load_predictor(damaged)
    except InputError as error:
        assert "\n" not in str(error)
        return
    assert np.array_equal(predictor.predict_proba(X[:, : len(predictor.metadata["feature_names"])]),
                          model.load_predictor(saved_model).predict_proba(X[:, : len(predictor.metadata["feature_names"])]))


def _skops_modules(path) -> set[str]:
    import io as stdio
    import json as stdjson

    with zipfile.ZipFile(path) as archive, zipfile.ZipFile(stdio.BytesIO(archive.read("model.skops"))) as skops:
        text = skops.read("schema.json").decode()
    return set(re.findall(r'"__module__": "([^"]+)"', stdjson.dumps(stdjson.loads(text))))


def _written_before_the_move_of_features(members: dict) -> None:
    """A model file as written before features/ moved into triage: its pipeline names
    `features.extractor` (the shipped model did until it was retrained)."""
    import io as stdio

    with zipfile.ZipFile(stdio.BytesIO(members["model.skops"])) as skops:
        inner = {name: skops.read(name) for name in skops.namelist()}
    inner["schema.json"] = inner["schema.json"].replace(b'"triage.features.', b'"features.')
    buffer = stdio.BytesIO()
    with zipfile.ZipFile(buffer, "w") as skops:
        for name, data in inner.items():
            skops.writestr(name, data)
    members["model.skops"] = buffer.getvalue()
    with_checksums(members)


def test_model_files_written_before_the_move_of_features_still_load(tmp_path):
    """A model file that names `features.extractor` (the package's place before it moved into
    triage) still loads, as triage.features.extractor."""
    from triage.features.extractor import MessageFeatures

    old = rewrite_model(model.default_model_path(), tmp_path / "old.triage", _written_before_the_move_of_features)
    assert "features.extractor" in _skops_modules(old)
    estimator, _ = model.load_estimator(old)
    assert isinstance(estimator.named_steps["features"], MessageFeatures)


def test_a_new_model_file_names_the_features_inside_triage(saved_model):
    modules = _skops_modules(saved_model)
    assert "triage.features.extractor" in modules and "features.extractor" not in modules


def test_an_unknown_compression_method_is_a_damaged_file_in_one_line(saved_model):
    # Found by the damaged-byte property test: a flipped byte in the central directory's
    # compression method made zipfile raise NotImplementedError.
    data = bytearray(saved_model.read_bytes())
    entry = data.rfind(b"PK\x01\x02")  # the last member's central directory entry
    data[entry + 10] = 99  # its compression method
    damaged = saved_model.parent / "unknown-method.triage"
    damaged.write_bytes(bytes(data))
    with pytest.raises(InputError, match="damaged") as error:
        model.load_predictor(damaged)
    assert "\n" not in str(error.value)


def test_the_embedded_model_pipeline_classifies_a_column_of_messages():
    """The pipeline inside the embedded model file (fitted before MessageFeatures validated its
    input) still takes a column of messages, one row of probabilities per message."""
    estimator, _ = model.load_estimator(model.default_model_path())
    texts = ["Coucou Julie, rdv chez Marc à 18h", "ok à demain", "t'es où ?"]
    proba = estimator.predict_proba(messages_column(texts))
    assert proba.shape == (3, 2) and np.allclose(proba.sum(axis=1), 1)
    assert estimator.named_steps["features"].get_feature_names_out()[0] == "UpperCase"


def _member_bytes(data: bytes) -> bytes:
    """Every member of a zip archive (a model file, a .skops or .npz inside it), unpacked, as one string of bytes."""
    import io

    out = [data]
    if data[:2] == b"PK":
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            out += [_member_bytes(archive.read(name)) for name in archive.namelist()]
    return b"".join(out)


def test_the_embedded_model_holds_no_text_of_the_messages_it_was_trained_on(dev_corpus):
    """The embedded model keeps statistics and arrays, never a message: no gold name nor any long word of the
    development files it was trained on appears in it, unpacked."""
    import csv

    content = _member_bytes(model.default_model_path().read_bytes()).lower()
    files = [dev_corpus, dev_corpus.with_name("sms_dev_large_88milsms.csv")]
    looked = 0
    for path in (p for p in files if p.exists()):
        with path.open(encoding="utf-8", newline="") as handle:
            for row in csv.DictReader(handle):
                text = row["text"]
                pieces = [text[s:e] for s, e, _ in json.loads(row["spans"] or "[]") if e - s >= 5]
                pieces += [w for w in text.split() if len(w) >= 12 and w.isalpha()]
                for piece in pieces:
                    looked += 1
                    assert piece.lower().encode("utf-8") not in content, "a message's text is in the embedded model"
    assert looked > 500


@pytest.mark.parametrize("labels", [(0, 1), ("NTA", "TA")])
def test_a_compiled_gradient_boosting_gives_scikit_learns_probabilities(labels):
    from sklearn.ensemble import HistGradientBoostingClassifier

    rng = np.random.default_rng(0)
    X = rng.normal(size=(3000, 6))
    X[:, 2] = rng.integers(0, 3, len(X))
    y = np.asarray(labels)[((X[:, 0] + X[:, 2] + rng.normal(size=len(X))) > 1.5).astype(int)]
    fitted = HistGradientBoostingClassifier(max_iter=40, max_depth=4, class_weight="balanced", random_state=0).fit(X, y)
    compiled = model.Forest.from_arrays(model.compile_forest(fitted, positive=labels[1]).arrays())
    test = rng.normal(size=(500, 6))
    test[:, 2] = rng.integers(0, 3, len(test))
    expected = fitted.predict_proba(test)[:, list(fitted.classes_).index(labels[1])]
    assert compiled.link == "logistic"
    assert np.allclose(compiled.predict_proba(test), expected, rtol=0, atol=1e-12)


def test_a_gradient_boosting_fitted_on_one_class_always_gives_that_class():
    from sklearn.ensemble import HistGradientBoostingClassifier

    X = np.random.default_rng(0).normal(size=(60, 3))
    never = model.compile_forest(HistGradientBoostingClassifier().fit(X, np.zeros(60, int)), positive=1)
    assert never.predict_proba(X).tolist() == [0.0] * 60


def _walked(forest: model.Forest, X: np.ndarray) -> np.ndarray:
    """What the forest predicts when its trees are walked node by node."""
    dtype = np.float32 if forest.link == "mean" else np.float64
    X = np.asarray(X, dtype=dtype)
    values = forest.proba[forest._walked_leaves(X, dtype)]
    if forest.link == "mean":
        return values.mean(axis=0)
    return 1.0 / (1.0 + np.exp(-(forest.baseline + values.sum(axis=0))))


def _mixed_rows(rng, n: int) -> np.ndarray:
    """Rows of yes-or-no features, small counts and real values, as the word scorer reads."""
    X = np.column_stack([rng.integers(0, 2, (n, 8)), rng.integers(0, 6, (n, 2)), rng.normal(size=(n, 3))]).astype(float)
    X[rng.random(n) < 0.02, 11] = np.nan  # a missing value goes right, as in the walk
    return X


@pytest.mark.parametrize("depth", [2, 5, 6, 7])
def test_trees_read_by_exit_leaf_give_exactly_what_walking_them_gives(depth):
    """The forest's trees are read feature by feature (exit leaves) when each has at most 64
    leaves, and walked otherwise; either way the probabilities are the same to the last bit."""
    from sklearn.ensemble import BaggingClassifier, HistGradientBoostingClassifier
    from sklearn.tree import DecisionTreeClassifier

    rng = np.random.default_rng(depth)
    X = _mixed_rows(rng, 4000)
    y = ((X[:, 0] + X[:, 8] + np.nan_to_num(X[:, 11]) + rng.normal(size=len(X))) > 2).astype(int)
    test = _mixed_rows(rng, 3000)
    boosted = HistGradientBoostingClassifier(max_iter=30, max_depth=depth, max_leaf_nodes=None, random_state=0)
    bagged = BaggingClassifier(DecisionTreeClassifier(max_depth=depth), n_estimators=7, random_state=0)
    for fitted in (boosted.fit(X, y), bagged.fit(np.nan_to_num(X), y)):
        forest = model.Forest.from_arrays(model.compile_forest(fitted, positive=1).arrays())
        leaves = forest.left < 0
        ends = [*forest.roots.tolist()[1:], len(forest.left)]
        most = max(int(leaves[start:end].sum()) for start, end in zip(forest.roots.tolist(), ends))
        exits = forest._exit_tables(np.float32 if forest.link == "mean" else np.float64)
        assert (exits is not None) == (most <= 64)
        predicted = forest.predict_proba(test)
        assert np.array_equal(predicted, _walked(forest, test))
        whole = ~np.isnan(test).any(axis=1)  # where scikit-learn learnt a side for missing values, it differs
        assert np.allclose(predicted[whole], fitted.predict_proba(test[whole])[:, 1], rtol=0, atol=1e-12)


def test_trees_read_by_exit_leaf_in_chunks_of_rows_give_the_same(monkeypatch):
    from sklearn.ensemble import HistGradientBoostingClassifier

    rng = np.random.default_rng(1)
    X = _mixed_rows(rng, 2000)
    y = (X[:, 1] + X[:, 9] > 3).astype(int)
    forest = model.compile_forest(HistGradientBoostingClassifier(max_iter=20, random_state=0).fit(X, y), positive=1)
    whole = forest.predict_proba(X)
    monkeypatch.setattr(model, "_EXIT_CELLS", 20 * 7)  # 7 rows at a time
    assert np.array_equal(forest.predict_proba(X), whole)
