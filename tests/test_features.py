import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from sklearn.base import clone

from triage.features import FEATURE_SETS, MessageFeatures, messages_column


def features_of(text, **kw):
    extractor = MessageFeatures(**kw).fit(messages_column([text]))
    return dict(zip(extractor.get_feature_names_out(), extractor.transform(messages_column([text]))[0]))


def test_the_paper_set_has_the_twelve_features_of_table_5():
    assert MessageFeatures().fit(messages_column(["salut"])).get_feature_names_out().tolist() == [
        "UpperCase", "SMSLength", "FirstName", "Countries", "Cities", "WordLength",
        "Numbers", "Elongations", "Abbreviations", "Punctuation", "LEFFF", "Pronouns",
    ]
    assert set(FEATURE_SETS["paper"]) < set(FEATURE_SETS["rich"])


def test_counts_on_a_written_example():
    f = features_of("Coucou Patrice, on va à La Rochelle avec julie mdrrr 06 12 34 56 78 !")
    assert f["UpperCase"] == 4  # Coucou Patrice La Rochelle
    assert f["FirstName"] == 2  # patrice, julie
    assert f["Cities"] == 1  # la rochelle
    assert f["Numbers"] == 5
    assert f["Elongations"] == 1  # mdrrr
    assert f["Abbreviations"] >= 1  # mdrrr is an SMS form
    assert f["Punctuation"] == 2
    assert f["SMSLength"] == len("Coucou Patrice, on va à La Rochelle avec julie mdrrr 06 12 34 56 78 !")
    assert f["Countries"] == 0
    assert features_of("Bises de Afrique du Sud")["Countries"] == 1


def test_a_disguised_name_gives_the_counts_of_its_plain_spelling():
    # report cv / holdout / infogain read the messages as classify does (folded).
    plain = features_of("on voit Nicolas demain", feature_set="rich")
    for disguised in ("Nicol\u0430s", "Nico\u200blas", "N i c o l a s"):
        assert features_of(f"on voit {disguised} demain", feature_set="rich") == plain, disguised


def test_normalised_counts_are_per_word():
    raw = features_of("Julie et Paul")
    per_word = features_of("Julie et Paul", normalise=True)
    assert per_word["FirstName"] == pytest.approx(raw["FirstName"] / 3)
    assert per_word["SMSLength"] == raw["SMSLength"]


def test_follows_the_scikit_learn_transformer_contract():
    extractor = MessageFeatures(feature_set="rich", normalise=True)
    assert clone(extractor).get_params() == {"feature_set": "rich", "normalise": True}
    X = extractor.fit_transform(messages_column(["salut", "", None]))
    assert X.shape == (3, len(FEATURE_SETS["rich"])) and np.isfinite(X).all()


def test_ten_rows_give_ten_rows_of_counts():
    texts = [f"Coucou Julie c'est Marc, rdv à {h}h !" for h in range(10)]
    X = MessageFeatures().fit_transform(np.column_stack([texts, texts]).astype(object))
    assert X.shape == (10, 2 * len(FEATURE_SETS["paper"]))
    assert np.array_equal(X[3, : len(FEATURE_SETS["paper"])], features_vector(texts[3]))


def test_each_column_of_texts_gives_its_own_counts_side_by_side():
    left = ["Salut Julie", "tu viens ce soir ?", "bisous de Lyon"]
    right = ["appelle Marc au 06 12 34 56 78", "ok", "Coucou Paul !!"]
    extractor = MessageFeatures().fit(np.column_stack([left, right]).astype(object))
    X = extractor.transform(np.column_stack([left, right]).astype(object))
    n = len(FEATURE_SETS["paper"])
    assert X.shape == (3, 2 * n)
    assert np.array_equal(X[:, :n], MessageFeatures().fit_transform(messages_column(left)))
    assert np.array_equal(X[:, n:], MessageFeatures().fit_transform(messages_column(right)))
    names = extractor.get_feature_names_out().tolist()
    assert names[0] == "x0__UpperCase" and names[n] == "x1__UpperCase"


def test_a_flat_list_of_texts_is_refused_with_the_shape_to_give():
    extractor = MessageFeatures().fit(messages_column(["salut"]))
    with pytest.raises(ValueError, match="Reshape your data"):
        extractor.transform(["salut", "ça va ?"])


def test_transform_before_fit_is_refused():
    from sklearn.exceptions import NotFittedError

    with pytest.raises(NotFittedError):
        MessageFeatures().transform(messages_column(["salut"]))


def features_vector(text):
    return MessageFeatures().fit_transform(messages_column([text]))[0]


def test_unknown_feature_set_is_refused():
    with pytest.raises(ValueError, match="unknown feature set"):
        MessageFeatures(feature_set="nope").fit(messages_column(["salut"]))


@pytest.mark.parametrize("title", ["Pr", "professeur", "Maître", "Mme", "Dr."])
def test_seek_and_hide_and_the_word_scorer_agree_on_what_a_title_is(lexicons, title):
    """One list of titles (dictionaries/cues/titles.txt): where Seek&Hide's title rule hides the
    surname after a title, the word scorer sees the same word as after a title."""
    from triage.model.names import WORD_FEATURES, word_features
    from triage.seekhide import SeekAndHide

    text = f"rdv demain avec {title} Zorblatt à 10h"
    analysis = SeekAndHide(lexicons).analyse([text])
    words = analysis.result(0).words
    surname = next(i for i, word in enumerate(words) if word.text == "Zorblatt")
    assert words[surname].rule == "title"
    indices, rows = word_features(analysis)[0]
    assert rows[indices.index(surname), WORD_FEATURES.index("after_title")] == 1


# Digits of several scripts (ASCII, Arabic-Indic, fullwidth, mathematical), letters, a line end and a NUL.
_DIGIT_TEXT = st.text(st.sampled_from("0129a é\n\0١٢３𝟙x"), max_size=12)


@given(st.lists(_DIGIT_TEXT, max_size=8))
def test_runs_of_digits_are_counted_as_the_regular_expression_finds_them(texts):
    from triage.features.counts import _DIGITS, _digit_runs

    lengths = np.fromiter(map(len, texts), np.int64, len(texts))
    assert _digit_runs(texts, lengths).tolist() == [len(_DIGITS.findall(text)) for text in texts]


@given(st.lists(st.lists(st.tuples(st.booleans(), st.booleans(), st.integers(0, 9)), max_size=4), max_size=6))
def test_sums_per_message_are_those_of_each_message_s_words(messages):
    from triage.features.counts import _sums

    words = [word for message in messages for word in message]
    bounds = np.cumsum([0, *map(len, messages)])
    flags = np.asarray([word[:2] for word in words], dtype=bool).reshape(-1, 2)
    values = np.asarray([word[2] for word in words], dtype=np.int64)
    assert _sums(flags, bounds).tolist() == [[sum(w[0] for w in m), sum(w[1] for w in m)] for m in messages]
    assert _sums(values, bounds).tolist() == [sum(w[2] for w in m) for m in messages]


@given(st.lists(st.integers(0, 600), min_size=1, max_size=5), st.integers(1, 12), st.integers(0, 2**32 - 1))
def test_flags_summed_per_message_of_many_words_or_few(words, width, seed):
    """A message of more than 255 words (its counts no longer fit a byte) is counted as well as shorter ones."""
    from triage.features.counts import _sums

    flags = np.random.default_rng(seed).random((sum(words), width)) < 0.7
    bounds = np.cumsum([0, *words])
    assert _sums(flags, bounds).tolist() == [flags[a:b].sum(axis=0).tolist() for a, b in zip(bounds[:-1], bounds[1:])]


# Letters repeated or not, of several kinds, digits, the underscore, marks and characters of no word.
_ELONGATION_TEXT = st.text(st.sampled_from("aaAé_1١²½\u0301\n\0 😀ß"), max_size=10)


@given(st.lists(_ELONGATION_TEXT, max_size=8))
def test_elongated_spellings_are_those_the_regular_expression_finds(texts):
    from triage.features.counts import _ELONGATION, _elongated

    assert _elongated(texts).tolist() == [bool(_ELONGATION.search(text)) for text in texts]
