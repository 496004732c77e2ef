"""Seek&Hide's word-surname step: a common surname that the lists read as an ordinary word (Petit,
Blanc, Fontaine), written with a capital right after a first name written with a capital, is a
surname, hidden as NOM; and a surname read from its context (after a title or a first name) keeps
its tag over the town or the brand it is also. The messages are invented."""

import pytest

from triage import model
from triage.classifier import Classifier
from triage.model.names import CorpusStats
from triage.schema import CLASSIFY_COLUMNS, DICTIONARY
from triage.seekhide import SeekAndHide
from triage.lexicons import COMMON_SURNAME_RANK


def word(seeker: SeekAndHide, text: str, spelled: str) -> tuple[str, str]:
    return next((w.label, str(w.rule)) for w in seeker.seek(text).words if w.text == spelled)


@pytest.fixture(scope="module")
def seeker(lexicons) -> SeekAndHide:
    return SeekAndHide(lexicons)


def test_the_lists_keep_the_surnames_they_read_as_words_with_their_rank(lexicons):
    ranks = lexicons.word_surnames
    assert ranks["petit"] < ranks["fontaine"] < ranks["blanc"] < COMMON_SURNAME_RANK
    assert max(ranks.values()) <= COMMON_SURNAME_RANK and len(ranks) > 500
    assert "bien" not in ranks  # the 20,095th surname: stays a word
    assert "petit" not in lexicons.last_names and "moreau" not in ranks  # Moreau is looked up as a surname


@pytest.mark.parametrize("text, spelled", [
    ("Sophie Petit arrive demain", "Petit"),
    ("on mange avec Marc Blanc ce soir", "Blanc"),
    ("c'est Léa Fontaine qui organise", "Fontaine"),
    ("je vois Julie Riviere demain", "Riviere"),  # accents aside: the list writes riviere
    ("je vois Julie Rivière demain", "Rivière"),
    ("avec Marie Petit ce soir", "Petit"),  # a first name that is also a word, away from a sentence start
    ("ok. Sophie Petit arrive", "Petit"),  # a first name that is no word, at a sentence start
])
def test_a_capitalised_common_surname_after_a_capitalised_first_name_is_a_surname(seeker, text, spelled):
    assert word(seeker, text, spelled) == (DICTIONARY, "word-surname")
    hidden = {text[start:end]: tag for start, end, tag in seeker.seek(text).hidden}
    assert hidden[spelled] == "NOM"


@pytest.mark.parametrize("text, spelled", [
    ("Merci Julie Le gâteau était top", "Le"),  # an article, whatever its rank as a surname
    ("Merci Julie Personne ne vient", "Personne"),  # a word the SMS forms list, whatever its rank
    ("je suis avec julie petit ce soir", "petit"),  # both in lower case
    ("Sophie petit arrive", "petit"),  # the word in lower case
    ("sophie Petit arrive", "Petit"),  # the first name in lower case
    ("SOPHIE PETIT ARRIVE", "PETIT"),  # a message in capitals
    ("on attend Sophie PETIT", "PETIT"),  # a word in capitals: SMS shout words (Julie GROS BISOUS)
    ("Merci Julie Bonne soirée", "Bonne"),  # a wish starting a new sentence without a full stop
    ("Bisous Julie Gros bisous", "Gros"),
    ("Merci Julie Bon courage", "Bon"),
    ("Julie Bravo pour ton bulletin", "Bravo"),
    ("Bisous Julie Papa", "Papa"),  # a parent's signature
    ("Julie Sans toi rien ne va", "Sans"),  # a preposition
    ("Sophie, Petit arrive", "Petit"),  # something between
    ("Paul Bien arrivé ?", "Bien"),  # a rare surname, far beyond the common ones
    ("Marie Petit arrive ce soir", "Petit"),  # at a sentence start, Marie may be the word's capital
    ("rdv chez Mme Petit demain", "Petit"),  # after a title: the title step's
    ("un Petit Prince", "Prince"),  # no first name before it
])
def test_word_surname_needs_a_common_surname_right_after_a_capitalised_first_name(seeker, text, spelled):
    assert word(seeker, text, spelled)[1] != "word-surname"


def test_a_first_name_and_a_word_of_both_lists_are_left_as_they_were(seeker):
    """Rose is a first name and a word (AMBIGUOUS), no surname the lists read as a word: the
    step leaves it to the word scorer, as before."""
    assert word(seeker, "Marie Rose vient ce soir", "Rose")[1] == "exact"


def test_the_step_can_be_switched_off(lexicons):
    off = SeekAndHide(lexicons, off={"word-surname"})
    assert word(off, "Sophie Petit arrive demain", "Petit")[0] != DICTIONARY
    assert [tag for *_, tag in off.seek("Sophie Petit arrive demain").hidden] == ["PRE"]


@pytest.mark.parametrize("off", [(), ("word-surname",), ("first-name-surname",), ("title",)])
def test_the_batch_code_agrees_with_the_reference_on_word_surnames(lexicons, off):
    from seekhide_reference import reference_seek

    texts = ["Sophie Petit arrive demain", "on mange avec Marc Blanc ce soir", "c'est Léa Fontaine qui organise",
             "je vois Julie Rivière demain", "on attend Sophie PETIT", "Julie GROS BISOUS", "Julie Gros bisous",
             "Merci Julie Bonne soirée", "Julie Sans toi", "Julie Derriere", "Sophie Petit Blanc",
             "Merci Julie Le gâteau était top", "Marie Petit arrive", "avec Marie Petit", "SOPHIE PETIT ARRIVE",
             "sophie Petit", "Sophie, Petit", "Jean-Marc Petit arrive", "Sophie Petit-Blanc", "Mme Julie Petit",
             "je suis avec marie durand Petit", "Sophie PETIT JEAN-MARC", "Marie Rose vient"]
    seeker = SeekAndHide(lexicons, off=off)
    analysis = seeker.analyse(texts)
    for m, text in enumerate(texts):
        result = analysis.result(m)
        batch = (result.label, [(w.start, w.end, w.label, str(w.rule)) for w in result.words],
                 sorted(analysis.hidden_spans()[m]))
        assert batch == reference_seek(seeker, text), text


# ------------------------------------------------------------------ in classify


@pytest.fixture(scope="module")
def classified():
    texts = {
        "title": "rdv chez Mme Fontaine demain",
        "first name": "c'est Léa Fontaine qui organise",
        "town": "je pars à Fontaine demain",
        "pair": "Sophie Petit arrive demain",
        "nickname": "merci pr Jojo",
    }
    classifier = Classifier(model.load_predictor(model.default_model_path()), stats=CorpusStats().add(texts.values()))
    rows = classifier.rows(list(texts.items()))
    return {row[0]: dict(zip(CLASSIFY_COLUMNS, row)) for row in rows}


def test_a_surname_read_from_its_context_is_hidden_as_a_person_not_left_as_a_town(classified):
    """Fontaine is a town too: after a title or a first name it is a surname, hidden as NOM (places
    are readable by default); after "à" it stays the town."""
    for key in ("title", "first name"):
        assert "Fontaine" not in classified[key]["anonymised"]
        assert '"NOM"' in classified[key]["hidden"]
    assert "Fontaine" in classified["town"]["anonymised"]
    assert "Petit" not in classified["pair"]["anonymised"] and "arrive demain" in classified["pair"]["anonymised"]


def test_a_nickname_after_a_title_keeps_its_own_tag(classified):
    """"pr" is a title (Pr) as much as an SMS "pour": the word after it stays the nickname the
    recognizers found, hidden as SUR."""
    assert "Jojo" not in classified["nickname"]["anonymised"]
    assert '"SUR"' in classified["nickname"]["hidden"]
