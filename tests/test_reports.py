"""`triage report cv|holdout|infogain|tree`: cross-validation without resampling leaks,
determinism, the paper's Table 6 layout, bagged trees' feature names, and the commands."""

import csv
import json

import numpy as np
import pytest
from imblearn.pipeline import Pipeline
from imblearn.under_sampling import RandomUnderSampler
from sklearn.ensemble import BaggingClassifier
from sklearn.model_selection import StratifiedKFold, cross_val_predict
from sklearn.tree import DecisionTreeClassifier

from triage.model.reports.cv import cross_validate, rest_of_model, run_cv, scores
from triage.model.reports.render import PAPER_TABLE5, integer_features, table6_markdown, tree_of
from triage.model.reports.tree import weka_tree_text

# ---------------------------------------------------------------------- data

NAMES = ["Julie", "Marc", "Sophie", "Thomas", "Camille", "Nicolas", "Claire", "Antoine", "Laura", "Pierre"]
TA_TEMPLATES = [
    "rdv avec {name} à 18h devant la gare",
    "{name} m'a dit de t'appeler au 06 12 34 56 7{digit}",
    "Coucou {name} ! On se voit demain chez Paul ?",
    "tu peux rappeler {name} au 07 98 76 54 3{digit} stp",
    "Bisous à {name} et à Léa, à samedi",
    "J'ai croisé {name} et Martin au marché ce matin",
    "appelle le 06 12 34 56 7{digit} demain",  # a phone, no name
    "mon nouveau numéro : 07 11 22 33 4{digit}",
]
NTA_TEMPLATES = [
    "ok a plus tard",
    "tu viens ce soir ou pas ?",
    "je suis dans le bus, j'arrive dans {digit} minutes",
    "mdr trop bien la soirée",
    "on mange quoi ce soir ?",
    "bonne nuit, dors bien",
    "j'ai oublié mes clés, tu es à la maison ?",
    "il pleut encore, quelle journée",
    "merci pour hier c'était super",
    "tkt je m'en occupe demain",
    "j'ai acheté une rose et du pain",  # a first name that is an ordinary word here
    "une rose pour la fête des mères",
    "la rose du jardin a fleuri",
]


def labelled_rows(n_ta=30, n_nta=30):
    """Messages written for these tests (never from the development corpus), TA and NTA mixed."""
    ta = [
        (TA_TEMPLATES[i % len(TA_TEMPLATES)].format(name=NAMES[i % len(NAMES)], digit=i % 10), "TA")
        for i in range(n_ta)
    ]
    nta = [(NTA_TEMPLATES[i % len(NTA_TEMPLATES)].format(digit=i % 10 + 2), "NTA") for i in range(n_nta)]
    rows = []
    for i in range(max(n_ta, n_nta)):  # interleaved, so that any prefix holds both classes
        rows += ta[i:i + 1] + nta[i:i + 1]
    return rows


def write_labelled(path, rows):
    with open(path, "w", encoding="utf-8", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["id", "text", "label"])
        for i, (text, label) in enumerate(rows, start=1):
            writer.writerow([i, text, label])
    return path


@pytest.fixture
def small_csv(tmp_path):
    return write_labelled(tmp_path / "small.csv", labelled_rows())


def synthetic(n=120, seed=0):
    """Column 0 is a unique row id; column 1 is informative, column 2 noise; 1 TA in 4."""
    rng = np.random.default_rng(seed)
    y = np.where(np.arange(n) % 4 == 0, "TA", "NTA").astype(object)
    signal = (y == "TA") * 2.0 + rng.normal(0, 1, n)
    X = np.column_stack([np.arange(n), signal, rng.normal(0, 1, n)])
    return X, y


# ---------------------------------------------------------------------- no resampling leak

SEEN: list[set[int]] = []  # the row ids each RecordingSampler was given, in call order


class RecordingSampler(RandomUnderSampler):
    def fit_resample(self, X, y, **params):
        SEEN.append({int(i) for i in np.asarray(X)[:, 0]})
        return super().fit_resample(X, y, **params)


def recording_model(kind, seed):
    return Pipeline([
        ("undersample", RecordingSampler(sampling_strategy=1.0, random_state=seed)),
        ("classifier", DecisionTreeClassifier(random_state=seed)),
    ])


def sampler_respected_folds(seen_per_fold, ids, fold_of) -> bool:
    """True when, in every fold, the sampler was given exactly that fold's training rows:
    none of its test rows, nothing else."""
    folds = np.unique(fold_of)
    if len(seen_per_fold) != len(folds):
        return False
    for seen, k in zip(seen_per_fold, folds):
        test = {int(i) for i in ids[fold_of == k]}
        train = {int(i) for i in ids[fold_of != k]}
        if seen & test or seen != train:
            return False
    return True


def test_undersampling_sees_only_the_training_part_of_each_fold():
    X, y = synthetic()
    SEEN.clear()
    predictions = cross_validate(X, y, folds=5, seed=0, kinds=["tree"], make_pipeline=recording_model)
    assert len(SEEN) == 5
    assert sampler_respected_folds(list(SEEN), X[:, 0], predictions.fold)


def test_the_check_catches_undersampling_before_the_split():
    # The leaky way: undersample the whole set, then cross-validate what is left.
    X, y = synthetic()
    SEEN.clear()
    X_balanced, y_balanced = RecordingSampler(sampling_strategy=1.0, random_state=0).fit_resample(X, y)
    no_sampler = lambda kind, seed: DecisionTreeClassifier(random_state=seed)  # noqa: E731
    predictions = cross_validate(X_balanced, y_balanced, folds=5, seed=0, kinds=["tree"], make_pipeline=no_sampler)
    seen_per_fold = [SEEN[0]] * 5  # the single undersampling served every fold
    assert not sampler_respected_folds(seen_per_fold, X_balanced[:, 0], predictions.fold)


def test_cross_validate_agrees_with_cross_val_predict():
    X, y = synthetic()
    predictions = cross_validate(X, y, folds=5, seed=3, kinds=["tree", "bagging"])
    for kind in ("tree", "bagging"):
        splitter = StratifiedKFold(n_splits=5, shuffle=True, random_state=3)
        expected = cross_val_predict(rest_of_model(kind, 3), X, y, cv=splitter, method="predict_proba")[:, 1]
        np.testing.assert_array_equal(predictions.proba[kind], expected)


def test_test_folds_keep_the_natural_class_balance():
    X, y = synthetic()
    predictions = cross_validate(X, y, folds=5, seed=0, kinds=["baseline"])
    assert set(predictions.fold) == set(range(5))
    for k in range(5):
        assert np.mean(y[predictions.fold == k] == "TA") == pytest.approx(0.25)


# ---------------------------------------------------------------------- determinism


def test_same_data_and_seed_give_the_same_predictions():
    X, y = synthetic()
    first = cross_validate(X, y, folds=5, seed=7)
    second = cross_validate(X, y, folds=5, seed=7)
    for kind in ("baseline", "tree", "bagging"):
        np.testing.assert_array_equal(first.proba[kind], second.proba[kind])
        np.testing.assert_array_equal(first.labels[kind], second.labels[kind])
    other = cross_validate(X, y, folds=5, seed=8)
    assert not np.array_equal(first.fold, other.fold)
    assert not np.array_equal(first.proba["bagging"], other.proba["bagging"])


def test_run_cv_twice_gives_identical_reports(small_csv):
    first = run_cv(small_csv, folds=5, seed=0).to_dict()
    second = run_cv(small_csv, folds=5, seed=0).to_dict()
    assert first == second
    assert set(first["models"]) == {"baseline", "tree", "bagging"}


# ---------------------------------------------------------------------- metrics and layout


def test_scores_lay_the_confusion_matrix_out_like_table6():
    # The paper's Table 6: Model NTA row 383 | 72, Model TA row 146 | 457.
    y_true = ["NTA"] * 383 + ["TA"] * 72 + ["NTA"] * 146 + ["TA"] * 457
    predicted = ["NTA"] * (383 + 72) + ["TA"] * (146 + 457)
    proba = [0.0 if p == "NTA" else 1.0 for p in predicted]
    model = scores("bagging", y_true, predicted, proba)
    assert model.confusion == [[383, 72], [146, 457]]
    assert model.per_class["NTA"]["precision"] == pytest.approx(0.842, abs=5e-4)
    assert model.per_class["NTA"]["recall"] == pytest.approx(0.724, abs=5e-4)
    assert model.per_class["TA"]["f_measure"] == pytest.approx(0.807, abs=5e-4)
    assert model.accuracy == pytest.approx((383 + 457) / 1058)
    assert model.balanced_accuracy == pytest.approx((383 / 529 + 457 / 529) / 2)
    lines = table6_markdown(model).splitlines()
    assert lines[0].startswith("| Classes | Real: NTA | Real: TA |")
    assert lines[2] == "| Model: NTA | 383 | 72 | NTA | 0.842 | 0.724 | 0.778 |"
    assert lines[3] == "| Model: TA | 146 | 457 | TA | 0.758 | 0.864 | 0.807 |"
    assert model.to_dict()["confusion"]["Model: TA"] == {"Real: NTA": 146, "Real: TA": 457}


def test_auc_is_none_when_the_test_messages_hold_one_class():
    assert scores("tree", ["NTA", "NTA"], ["NTA", "TA"], [0.1, 0.9]).roc_auc is None


# ---------------------------------------------------------------------- trees


def test_integer_features_print_as_floor_of_the_threshold():
    # UpperCase alone separates the classes (cut between 1 and 4); WordLength does not.
    X = np.array([[0, 1.0], [1, 4.0], [4, 2.0], [5, 3.5]])
    tree = DecisionTreeClassifier(random_state=0).fit(X, ["NTA", "NTA", "TA", "TA"])
    names = ["UpperCase", "WordLength"]
    assert weka_tree_text(tree, names, ["NTA", "TA"]).splitlines()[0] == "UpperCase <= 2.5: NTA (2.0)"
    text = weka_tree_text(tree, names, ["NTA", "TA"], integer_features={"UpperCase"})
    assert text.splitlines()[:2] == ["UpperCase <= 2: NTA (2.0)", "UpperCase > 2: TA (2.0)"]


def test_which_features_are_integers():
    names = ["UpperCase", "SMSLength", "WordLength", "BestNameRank", "FirstName"]
    assert integer_features(names, normalise=False) == {"UpperCase", "SMSLength", "FirstName"}
    assert integer_features(names, normalise=True) == set()


def test_bagged_trees_get_their_own_feature_names():
    # With max_features < 1 each bagged tree sees a subset of the columns, in a shuffled
    # order: a tree's column j is the model's column estimators_features_[k][j].
    rng = np.random.default_rng(0)
    n = 200
    y = np.where(rng.random(n) < 0.5, "TA", "NTA")
    names = ["Noise1", "Noise2", "Signal", "Noise3", "Noise4"]
    X = rng.integers(0, 5, size=(n, 5)).astype(float)
    X[:, 2] = np.where(y == "TA", 10, 0) + rng.integers(0, 3, n)  # decides alone
    bagging = BaggingClassifier(
        DecisionTreeClassifier(random_state=0), n_estimators=10, max_features=4, random_state=0
    ).fit(X, y)
    columns = [list(bagging.estimators_features_[k]) for k in range(10)]
    assert any(2 in c and c.index(2) != 2 for c in columns), "Signal never moved: the test could not tell"
    for k in range(10):
        tree = tree_of(bagging, names, normalise=False, tree_index=k)
        assert tree.feature_names == [names[j] for j in columns[k]]
        assert tree.class_names == ["NTA", "TA"] and tree.n_trees == 10
        if 2 in columns[k]:
            assert tree.text.startswith("Signal <= 6: NTA (")  # the midpoint between 2 and 10
        else:
            assert "Signal" not in tree.text


def test_tree_index_out_of_range_is_an_input_error():
    from triage.errors import InputError

    X, y = synthetic()
    single = DecisionTreeClassifier(random_state=0).fit(X, y)
    with pytest.raises(InputError, match="single tree"):
        tree_of(single, ["Id", "A", "B"], normalise=False, tree_index=1)


# ---------------------------------------------------------------------- the commands


def test_report_cv_prints_and_writes_its_files(cli, small_csv, tmp_path):
    out = tmp_path / "cv"
    result = cli("report", "cv", small_csv, "--folds", 5, "--out-dir", out)
    assert result.exit_code == 0, result.output
    assert "| Model: NTA |" in result.output and "Balanced accuracy" in result.output
    assert "undersampled, balanced set" in result.output
    for name in ("cv.md", "cv.json", "cv_confusion.png"):
        assert (out / name).stat().st_size > 0
    assert (out / "cv_confusion.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    report = json.loads((out / "cv.json").read_text())
    assert report["messages"] == 60 and report["settings"]["folds"] == 5
    bagging = report["models"]["bagging"]
    assert sum(bagging["confusion"]["Model: NTA"].values()) + sum(bagging["confusion"]["Model: TA"].values()) == 60
    assert bagging["roc_auc"] > 0.8  # names and phones are easy to see


def test_report_cv_refuses_more_folds_than_messages_of_a_class(cli, tmp_path):
    path = write_labelled(tmp_path / "few.csv", labelled_rows(n_ta=12, n_nta=30))
    result = cli("report", "cv", path, "--folds", 20, "--out-dir", tmp_path / "cv")
    assert result.exit_code == 1
    assert result.output.strip().splitlines() == [
        f"Error: 20-fold cross-validation needs at least 20 messages of each class; {path} has 12 TA and 30 NTA "
        "(use fewer --folds)"
    ]


def test_report_holdout_with_too_few_rows_is_a_one_line_error(cli, small_csv, tmp_path):
    result = cli("report", "holdout", small_csv, "--train-first", 50, "--test-next", 20, "--out-dir", tmp_path / "h")
    assert result.exit_code == 1
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error:") and "has 60" in lines[0]
    assert not (tmp_path / "h").exists()


def test_report_holdout_tests_the_rows_after_the_training_rows(cli, tmp_path):
    rows = labelled_rows()  # 60 rows, TA/NTA alternating ...
    rows += [(f"à demain, je passe vers {h}h", "NTA") for h in range(10, 20)]  # ... then 10 NTA
    path = write_labelled(tmp_path / "ordered.csv", rows)
    out = tmp_path / "holdout"
    result = cli("report", "holdout", path, "--train-first", 60, "--test-next", 10, "--out-dir", out)
    assert result.exit_code == 0, result.output
    report = json.loads((out / "holdout.json").read_text())
    assert report["class_counts"] == {"NTA": 10, "TA": 0}  # exactly the last 10 rows
    assert report["settings"]["training_class_counts"] == {"NTA": 30, "TA": 30}
    assert report["models"]["bagging"]["roc_auc"] is None
    assert {p.name for p in out.iterdir()} == {"holdout.md", "holdout.json", "holdout.png"}


def test_report_infogain_ranks_the_paper_features(cli, small_csv, tmp_path):
    out = tmp_path / "ig"
    result = cli("report", "infogain", small_csv, "--balanced", "--out-dir", out)
    assert result.exit_code == 0, result.output
    ranked = [line.split("|")[2].strip() for line in result.output.splitlines() if line.startswith("| 1")]
    assert ranked[0] in {name for name, _ in PAPER_TABLE5}
    table = result.output.split("| Rank | Feature | InfoGain |")[1].split("\n\n")[0]
    assert {line.split("|")[2].strip() for line in table.strip().splitlines()[1:]} == {n for n, _ in PAPER_TABLE5}
    report = json.loads((out / "infogain.json").read_text())
    assert len(report["ranking"]) == 12 and report["balanced"] is True
    assert report["class_counts"] == {"NTA": 30, "TA": 30}
    gains = [r["infogain"] for r in report["ranking"]]
    assert gains == sorted(gains, reverse=True) and gains[0] > 0
    assert (out / "infogain.png").read_bytes()[:4] == b"\x89PNG"


def test_report_tree_prints_weka_format(cli, small_csv, tmp_path):
    model = tmp_path / "m.triage"
    trained = cli("train", small_csv, "-o", model, "--kind", "tree", "--features", "paper")
    assert trained.exit_code == 0, trained.output
    out = tmp_path / "tree"
    result = cli("report", "tree", model, "--out-dir", out)
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert any(line.startswith("|   ") for line in lines)
    assert any(": NTA (" in line for line in lines) and any(": TA (" in line for line in lines)
    assert any(line.startswith("Number of Leaves  : \t") for line in lines)
    assert any(line.startswith("Size of the tree : \t") for line in lines)
    # Counts print as whole numbers, as Weka prints them for integer attributes.
    thresholds = [line.split("<= ")[1].split(":")[0] for line in lines if "<= " in line and "WordLength" not in line]
    assert thresholds, result.output
    assert thresholds and all(t.lstrip("-").isdigit() for t in thresholds)
    assert (out / "tree.txt").read_text().count("Number of Leaves") == 1
    assert (out / "tree.png").read_bytes()[:4] == b"\x89PNG"
    refused = cli("report", "tree", model, "--tree-index", 1, "--out-dir", out)
    assert refused.exit_code == 1 and "single tree" in refused.output


# ---------------------------------------------------------------------- the real corpus


def test_bagging_auc_on_the_development_corpus(dev_corpus):
    evaluation = run_cv(dev_corpus, folds=10, seed=0)
    assert evaluation.models["bagging"].roc_auc > 0.8
    assert evaluation.models["baseline"].roc_auc == pytest.approx(0.5)


def test_report_cv_compares_the_feature_sets(cli, small_csv, tmp_path):
    result = cli("report", "cv", small_csv, "--folds", "3", "--compare", "--out-dir", tmp_path / "cv")
    assert result.exit_code == 0, result.output
    assert "Feature sets compared" in result.output and "rich: accuracy" in result.output
    assert (tmp_path / "cv" / "paper" / "cv.json").exists() and (tmp_path / "cv" / "rich" / "cv.json").exists()


def test_a_holdout_on_a_small_file_says_which_sizes_would_do(cli, tmp_path):
    from conftest import SAMPLE

    result = cli("report", "holdout", SAMPLE, "--out-dir", tmp_path)
    assert result.exit_code == 1
    assert "choose smaller --train-first and --test-next, e.g. --train-first 173 --test-next 87" in result.output
    assert cli("report", "holdout", SAMPLE, "--train-first", 173, "--test-next", 87, "--out-dir", tmp_path).exit_code == 0
