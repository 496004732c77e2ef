"""Tests for triage.text.detectors: the regular-expression detectors (TEL, MEL, URL, ADR, COD).

All example messages are invented, in French SMS style.
"""

import json
import re
import sys
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from triage.schema import CLASSIFY_COLUMNS
from triage.text import detectors
from triage.text.detectors import TAGS, Detection, detect


def spans(text):
    """What the detectors hide, as (substring, tag) pairs in text order."""
    return [(text[d.start : d.end], d.tag) for d in detect(text)]


def one_hit(tag, cases):
    """Parametrise (text, expected substring) cases expecting exactly one hit of `tag`."""
    return pytest.mark.parametrize("text, expected", cases, ids=[text for text, _ in cases])


# ---------------------------------------------------------------- TEL

TEL_POSITIVE = [
    ("appelle moi au 06 12 34 56 78 stp", "06 12 34 56 78"),
    ("mon num c 0612345678 bizz", "0612345678"),
    ("nouveau num: 07.81.22.43.90 !", "07.81.22.43.90"),
    ("06-12-34-56-78 c ma soeur", "06-12-34-56-78"),
    ("rappelle au 06 12 34 5678 apres 18h", "06 12 34 5678"),
    ("le fixe 04 67.12-34 56 marche pas", "04 67.12-34 56"),
    ("mon num anglais... non le +33 6 12 34 56 78", "+33 6 12 34 56 78"),
    ("+33612345678", "+33612345678"),
    ("depuis l'etranger 0033 6 12 34 56 78", "0033 6 12 34 56 78"),
    ("ds la signature: +33 (0)6 12 34 56 78.", "+33 (0)6 12 34 56 78"),
    ("tel:0612345678", "0612345678"),
    ("tu m'appelles au0612345678 ?", "0612345678"),
    ("la box c 09 51 23 45 67", "09 51 23 45 67"),
    ("le cabinet 01 42 68 53 00 ferme a 19h", "01 42 68 53 00"),
    ("+33 06 12 34 56 78 (le 0 en trop)", "+33 06 12 34 56 78"),
]


@one_hit("TEL", TEL_POSITIVE)
def test_tel_positive(text, expected):
    assert spans(text) == [(expected, "TEL")]


# A phone number as sixteen users write it. Some are folded before the detectors
# see them (full-width and Arabic-Indic digits, the narrow no-break space, a zero-width space),
# so they are checked on whole messages, through the classifier.
PHONE_VARIANTS = {
    "plain": "06 12 34 56 78",
    "dots": "06.12.34.56.78",
    "dashes": "06-12-34-56-78",
    "+33": "+33 6 12 34 56 78",
    "0033": "0033 6 12 34 56 78",
    "full-width digits": "\uff10\uff16 \uff11\uff12 \uff13\uff14 \uff15\uff16 \uff17\uff18",
    "Arabic-Indic digits": "\u0660\u0666 \u0661\u0662 \u0663\u0664 \u0665\u0666 \u0667\u0668",
    "slashes": "06/12/34/56/78",
    "underscores": "06_12_34_56_78",
    "commas": "06,12,34,56,78",
    "en dash": "06\u201312\u201334\u201356\u201378",
    "narrow no-break space": "06\u202f12\u202f34\u202f56\u202f78",
    "zero-width space": "06\u200b12\u200b34\u200b56\u200b78",
    "digits spaced out": "0 6 1 2 3 4 5 6 7 8",
    "a pair split": "06 12 34 56 7 8",
    "letter o for the zero": "o6 12 34 56 78",
}


@pytest.fixture(scope="module")
def classifier():
    from triage import model
    from triage.classifier import Classifier

    return Classifier(model.load_predictor(model.default_model_path()))


@pytest.mark.parametrize("variant", PHONE_VARIANTS)
def test_every_way_of_writing_a_phone_number_is_hidden(classifier, variant):
    phone = PHONE_VARIANTS[variant]
    (row,) = classifier.rows([("1", f"appelle moi au {phone} stp")])
    assert json.loads(row[CLASSIFY_COLUMNS.index("hidden")]) == [[15, 15 + len(phone), "TEL"]]
    assert row[CLASSIFY_COLUMNS.index("anonymised")].startswith("appelle moi au <TEL_")


NEGATIVE = {
    "TEL": [
        "3615 ulla mdr",
        "rdv 18h30 devant chez toi",
        "on se voit le 12/05 ?",
        "c'etait en 2012 je crois",
        "ca fait 10 euros chacun",
        "le 05 12 2012 10h30 chez le dentiste",  # a date + a time, not a phone
        "appelle le 112 ou le 15 en urgence",
        "j'ai eu 06/20 en maths et 12,5 en anglais",
        "les 01/02/03/04/05 avril je bosse",
        # ordinary numbers, next to the separators new users put in phone numbers
        "ca fait 0,50 1,20 et 3,40 en tout",
        "score final 0-1 2-3 4-5 6-7 8-9",
        "rdv a 18h30 ou 18h45",
        "le 12/03/2024 ou le 13/03/2024",
        "les 01,02,03,04,05 et 06 mai",
        "0 5 10 15 20 25 pompes",
        "compte 0 1 2 3 4 5 6 7 8 9",
        "bo6 12 34 56 78",
        "le 05/06/2024 a 14h",
    ],
    "MEL": [
        "on se voit @ la maison",
        "rdv @18h",
        "envoie moi un mail stp",
        "julie @ gmail",
        "mon mail c julie at gmail point com",  # spelled-out forms are not covered
        "@julie t'es ou",
        "trop bien!@+",
        "prix: 3 @ 2 euros",
    ],
    "URL": [
        "etc. etc. bref",
        "ok.merci a demain",
        "rdv 10h a.m. pile",
        "j'ai vu ca sur internet",
        "le 12/05 ou le 13/05",
        "et/ou comme tu veux",
        "1/2 heure de retard",
        "t ou.la tu viens",
        "c'est du 50/50",
    ],
    "ADR": [
        "on se voit 2 rue plus loin",
        "la rue est fermee",
        "il reste 1 place pour demain",
        "j'ai 2 cours de maths",
        "3 place libre dans la voiture",
        "34000 Montpellier c'est loin",
        "rdv 18h30 rue des Lilas",  # a time, then a street without number
        "prends la 2 rue a gauche",
        "j'ai recu 5 mail non lus",
        "appart 3 ch lumineux",
        "on prend la 2 route de la plage demain",  # a weak street type: neither a capital nor a postcode
    ],
    "COD": [
        "rdv 18h30 ou 19h",
        "le 12/05/2012 a midi",
        "le 12.05.12 a midi",
        "ca coute 12,50€",
        "en 2012 et 2013",
        "la saison 2012-2013",
        "1 250 000 000 euros de dette",
        "le code postal c quoi",
        "mon mdp est trop long",
        "15000",
        "123456 fois merci",
        "les chambres 12 14 16 18",
        "le code 18h30 ca marche pas",
        "code promo NOEL20",
        "code 2024 pour le voyage",
        "le badge 1500€ c cher",
        "je porte 2 sacs",
        "la porte 12 est fermee",
        "ma plaque est sale",
        "a 18H ou 17H45, ouvert H24",
        "appart de 55M2 et une cle de 8GO",
        "ma PS4 et mon iPhone 3GS",
        "il est en CM2, LV2 allemand",
        "trop de CO2 dans mes MP3",
        "Bi1 vu, BI1",
        # a train by its time, a tram line, a year after "vol", a price; a number with no leading zero
        "le train de 8h12 est en retard",
        "je prends le tram 2 puis la ligne 1",
        "le vol 2024 de la compagnie",
        "le train 12 min de retard",
        "une facture de 0800 €",
        "j'ai 3459 mails non lus",
    ],
}


def test_enough_examples():
    """The brief asks for at least 12 positive and 8 negative examples (8/8 for ADR and COD)."""
    positives = {"TEL": TEL_POSITIVE, "MEL": MEL_POSITIVE, "URL": URL_POSITIVE, "ADR": ADR_POSITIVE, "COD": COD_POSITIVE}
    for tag in TAGS:
        minimum = 8 if tag in ("ADR", "COD") else 12
        assert len(positives[tag]) >= minimum, tag
        assert len(NEGATIVE[tag]) >= 8, tag


@pytest.mark.parametrize(
    "text", [text for tag in TAGS for text in NEGATIVE[tag]], ids=[f"{tag}: {text}" for tag in TAGS for text in NEGATIVE[tag]]
)
def test_negative(text):
    assert spans(text) == []


# ---------------------------------------------------------------- MEL

MEL_POSITIVE = [
    ("mon mail prenom.nom@example.fr merci", "prenom.nom@example.fr"),
    ("x_y-z+tag@sub.example.co.uk", "x_y-z+tag@sub.example.co.uk"),
    ("ecris moi (julie@example.org)", "julie@example.org"),
    ("c'est julie.dupont@orange.fr.", "julie.dupont@orange.fr"),
    ("mail:toto@gmail.com", "toto@gmail.com"),
    ("envoie sur JULIE.D@HOTMAIL.FR stp", "JULIE.D@HOTMAIL.FR"),
    ("<marc75@free.fr>", "marc75@free.fr"),
    ("mon adresse: julie@gmail.com.Bisous", "julie@gmail.com"),
    ("jean-marc.dupré@laposte.net, merci", "jean-marc.dupré@laposte.net"),
    ("a.martin@etu.univ-montp2.fr!!", "a.martin@etu.univ-montp2.fr"),
    ("le mail de la mairie contact@mairie-sete.bzh", "contact@mairie-sete.bzh"),
    ("ecris a 'paul.b@yahoo.fr'", "paul.b@yahoo.fr"),
    ("sophie_34@live.com?", "sophie_34@live.com"),
]


@one_hit("MEL", MEL_POSITIVE)
def test_mel_positive(text, expected):
    assert spans(text) == [(expected, "MEL")]


def test_mel_two_addresses_glued_by_a_comma():
    assert spans("a@b.fr,c@d.fr") == [("a@b.fr", "MEL"), ("c@d.fr", "MEL")]


# ---------------------------------------------------------------- URL

URL_POSITIVE = [
    ("va sur http://example.com/page?x=1&y=2. Bisous", "http://example.com/page?x=1&y=2"),
    ("https://www.impots.gouv.fr.", "https://www.impots.gouv.fr"),
    ("www.leboncoin.fr/annonces/123, regarde!", "www.leboncoin.fr/annonces/123"),
    ("WWW.SITE.FR", "WWW.SITE.FR"),
    ("regarde example.fr/page", "example.fr/page"),
    ("bit.ly/3xYz!", "bit.ly/3xYz"),
    ("le lien (http://t.co/AbC123)", "http://t.co/AbC123"),
    ("(voir https://fr.wikipedia.org/wiki/Montpellier_(ville))", "https://fr.wikipedia.org/wiki/Montpellier_(ville)"),
    ("ma page facebook.com/julie.dupont34 :)", "facebook.com/julie.dupont34"),
    ("lien: https://docs.example.org:8080/a/b#c, vite", "https://docs.example.org:8080/a/b#c"),
    ("photos sur www.flickr.com/photos/toto!!", "www.flickr.com/photos/toto"),
    ("http://example.fr/0612345678", "http://example.fr/0612345678"),  # the digits are part of the URL
    ("inscris toi sur youtube.com/watch?v=abc123;", "youtube.com/watch?v=abc123"),
]


@one_hit("URL", URL_POSITIVE)
def test_url_positive(text, expected):
    assert spans(text) == [(expected, "URL")]


# ---------------------------------------------------------------- ADR

ADR_POSITIVE = [
    ("je suis au 12 rue des Lilas", "12 rue des Lilas"),
    ("3 bis avenue Jean Jaurès 34000 Montpellier", "3 bis avenue Jean Jaurès 34000 Montpellier"),
    ("c au 45, bd de la République", "45, bd de la République"),
    ("7 impasse du Moulin 13100 aix en provence", "7 impasse du Moulin 13100 aix en provence"),
    ("2 all. des Pins", "2 all. des Pins"),
    ("je suis au 12 rue des lilas ce soir", "12 rue des lilas"),
    ("10 rue du 8 mai 1945 a 14h", "10 rue du 8 mai 1945"),
    ("8 rue de l'Église 75001 Paris", "8 rue de l'Église 75001 Paris"),
    ("chez moi 5 rue d'Alsace. bisous", "5 rue d'Alsace"),
    ("2 cours Mirabeau", "2 cours Mirabeau"),  # weak street type, capitalised name
    ("1 place de la comédie 34000 montpellier", "1 place de la comédie 34000 montpellier"),  # weak type, postcode
    ("au 3 route de la Plage, 44350 Guérande", "3 route de la Plage, 44350 Guérande"),  # a capital, and a postcode
    ("au 3 rte de la plage", "3 rte de la plage"),  # a strong street type: any name
    ("RDV au 12 RUE DES LILAS", "12 RUE DES LILAS"),
    ("12b rue Pierre et Marie Curie et apres on mange", "12b rue Pierre et Marie Curie"),
    ("15 rue St. Jean", "15 rue St. Jean"),
]


@one_hit("ADR", ADR_POSITIVE)
def test_adr_positive(text, expected):
    assert spans(text) == [(expected, "ADR")]


# ---------------------------------------------------------------- COD

COD_POSITIVE = [
    ("mon iban FR76 3000 6000 0112 3456 7890 189 merci", "FR76 3000 6000 0112 3456 7890 189"),
    ("iban fr7630006000011234567890189", "fr7630006000011234567890189"),
    ("num secu 1 85 05 78 006 084 36", "1 85 05 78 006 084 36"),
    ("carte 4970 1012 3456 7890 exp 12/27", "4970 1012 3456 7890"),
    ("ref dossier 12345678", "12345678"),
    ("le colis 6A01234567890 est arrivé", "6A01234567890"),  # capitals inside a code are hidden too
    ("dossier ref12345678", "12345678"),  # ...a glued lower-case word is not
    ("n° client 123 456 789", "123 456 789"),
    ("code 4B12A", "4B12A"),
    ("le digicode 1234A", "1234A"),
    ("code porte: 2580", "2580"),
    ("le code c'est le B2580", "B2580"),
    ("Code de la porte = A1234, 3eme", "A1234"),
    ("code d'entrée 1234B", "1234B"),
    # codes after a cue
    ("le code de la porte c 4521B a ce soir", "4521B"),
    ("digicode 12A45 bisous", "12A45"),
    ("le code c 1234 ok", "1234"),
    ("la porte 4521B", "4521B"),
    ("mon badge 8842 je l'ai pas", "8842"),
    ("pin 0000 stp", "0000"),
    ("mdp: azer12ty", "azer12ty"),
    ("le mot de passe c chat2019", "chat2019"),
    ("ma plaque c AB-123-CD", "AB-123-CD"),
    # a postal code after its cue, passwords, a number sent alone
    ("code postal 34000", "34000"),
    ("mon code postal c 34000 merci", "34000"),
    ("mdp c azerty123", "azerty123"),
    ("password: Soleil#2024", "Soleil#2024"),
    ("le mot de passe est jupiter75!", "jupiter75"),
    ("pwd=abc12", "abc12"),
    ("847392", "847392"),
    (" 4829137 !", "4829137"),
    ("immat AB 123 CD", "AB 123 CD"),
    # capitals and digits mixed, with no cue
    ("ton colis TL7CWJQ arrive demain", "TL7CWJQ"),
    ("portail c TV22", "TV22"),
    ("rdv salle 9U2 a 14h", "9U2"),
    # a code cued by "codé", a train or a flight by its number, a number starting with a zero alone
    ("les places sont codées 27514", "27514"),
    ("Train 6112 voiture 12", "6112"),
    ("TGV n° 6203 demain", "6203"),
    ("mon vol AF 1234 part a midi", "AF 1234"),
    ("0317 il me semble", "0317"),
]


@one_hit("COD", COD_POSITIVE)
def test_cod_positive(text, expected):
    assert spans(text) == [(expected, "COD")]


# ---------------------------------------------------------------- overlaps and ordering


@pytest.mark.parametrize(
    "text, expected",
    [
        # Same span matched by TEL and by the 8+-digit COD rule: a phone shape is TEL.
        ("0612345678", [("0612345678", "TEL")]),
        # COD would take "33612345678" only: TEL is longer.
        ("+33612345678", [("+33612345678", "TEL")]),
        # A phone followed by a small number is not a longer code.
        ("appelle 06 12 34 56 78 12 fois", [("06 12 34 56 78", "TEL")]),
        # ...but a long grouped number that starts like a phone is one code.
        ("06 12 34 56 78 12 34 56", [("06 12 34 56 78 12 34 56", "COD")]),
        # The e-mail inside a URL, the digits inside an IBAN: the longest wins.
        ("http://user@example.com/x", [("http://user@example.com/x", "URL")]),
        ("FR7630006000011234567890189", [("FR7630006000011234567890189", "COD")]),
    ],
)
def test_overlap_keeps_the_longest(text, expected):
    assert spans(text) == expected


def test_equal_length_ties_follow_the_priority():
    # Five candidates on the same span: the priority URL > MEL > ADR > TEL > COD decides.
    order = ["URL", "MEL", "ADR", "TEL", "COD"]
    for position, winner in enumerate(order):
        candidates = [Detection(3, 10, tag) for tag in reversed(order[position:])]
        assert detectors._resolve(candidates) == [Detection(3, 10, winner)]


def test_longest_wins_over_priority_and_disjoint_spans_survive():
    candidates = [
        Detection(0, 5, "URL"),
        Detection(2, 12, "COD"),  # longer than the URL it overlaps
        Detection(12, 14, "TEL"),  # touches but does not overlap
        Detection(20, 25, "MEL"),
    ]
    assert detectors._resolve(candidates) == [
        Detection(2, 12, "COD"),
        Detection(12, 14, "TEL"),
        Detection(20, 25, "MEL"),
    ]


def test_several_tags_in_one_message_are_sorted_by_start():
    text = "mail a@b.fr, tel 0612345678, 12 rue des Lilas, code 1234, www.site.fr"
    assert spans(text) == [
        ("a@b.fr", "MEL"),
        ("0612345678", "TEL"),
        ("12 rue des Lilas", "ADR"),
        ("1234", "COD"),
        ("www.site.fr", "URL"),
    ]
    found = detect(text)
    assert found == sorted(found, key=lambda d: d.start)


# ---------------------------------------------------------------- fast path


@pytest.mark.parametrize(
    "text",
    [
        "",
        "coucou tu fais quoi ce soir ? on se voit chez Julie",
        "ok jte rappelle des que g fini bisous",
        "wesh bien ou bien, bon week-end",  # 'w' but no "www"
        "on se voit rue des Lilas place de la Comédie",
    ],
)
def test_message_without_digit_at_or_www_is_skipped(text, monkeypatch):
    def must_not_run(*args):
        raise AssertionError("a detector ran on a message the pre-check should skip")

    monkeypatch.setattr(detectors, "_detect_numbers", must_not_run)
    monkeypatch.setattr(detectors, "_detect_mails", must_not_run)
    if "w" not in text.lower():  # a 'w' costs one more check for "www"
        monkeypatch.setattr(detectors, "_detect_urls", must_not_run)
        monkeypatch.setattr(detectors, "_resolve", must_not_run)  # returned at the pre-check
    assert detect(text) == []


# ---------------------------------------------------------------- offsets (property-based)

SMS_ALPHABET = "0123456789 +-./@:,()'éèàabcdefhilmnoprstuwxyzABCDFLMR€h\n"
SMS_WORDS = [
    "06", "12", "34", "56", "78", "+33", "0033", "rue", "bis", "avenue", "des", "Lilas", "de", "la",
    "34000", "Montpellier", "code", "porte:", "4B12A", "FR76", "3000", "6000", "www.", "http://",
    "example.fr/", "julie", "@", "gmail.com", "18h30", "12/05", "bisous", ".", ",", " ", " ", " ",
]


@settings(max_examples=300, deadline=None)
@given(
    st.one_of(
        st.text(alphabet=SMS_ALPHABET, max_size=80),
        st.lists(st.sampled_from(SMS_WORDS), max_size=25).map("".join),
    )
)
def test_offsets_always_point_into_the_text(text):
    found = detect(text)
    previous_end = 0
    for d in found:
        assert isinstance(d, Detection)
        assert d.tag in TAGS
        assert 0 <= d.start < d.end <= len(text)
        assert d.start >= previous_end  # sorted and never overlapping
        assert text[d.start : d.end] == text[d.start : d.end].strip()  # no surrounding blanks
        previous_end = d.end
    assert detect(text) == found  # deterministic


# ---------------------------------------------------------------- robustness


@pytest.mark.parametrize(
    "text",
    [
        "1 " * 5000,
        "0" * 10000,
        "a" * 20000 + "@",
        "a." * 5000 + "fr/",
        "12 rue " + "de " * 3000,
        "12 rue " + "Aa " * 3000,
        "w" * 10000,
        "code " * 3000,
        "06 " * 5000,
        "x@" * 5000,
    ],
    ids=lambda text: repr(text[:12]),
)
def test_no_catastrophic_backtracking(text):
    started = time.perf_counter()
    detect(text)
    assert time.perf_counter() - started < 2.0


@settings(max_examples=400, deadline=None)
@given(st.text(alphabet="AZ09 5xé-./@#:,+€hH", max_size=24))
def test_a_code_with_no_cue_is_never_missed_for_want_of_its_hint(text):
    """The codes with no cue are searched only in texts where their hint is (a capital next to a
    digit; a zero and three digits): every text where the pattern matches holds the hint."""
    if detectors._MIXED_CODE_RE.search(text):
        assert detectors._MIXED_HINT.search(text)
    if detectors._ZERO_CODE_RE.search(text):
        assert detectors._ZERO_HINT.search(text)


@pytest.mark.parametrize("text, expected", [("colis TL7CWJQ arrivé", [("TL7CWJQ", "COD")]),
                                            ("salle 9U2 au fond", [("9U2", "COD")]),
                                            ("le code 0317 marche", [("0317", "COD")]),
                                            ("MP3 et 18H et 04 a", [])])
def test_codes_with_no_cue_are_found_behind_their_hints(text, expected):
    assert spans(text) == expected


@settings(max_examples=400, deadline=None)
@given(st.text(alphabet="AZaz09 5é-./", max_size=16))
def test_the_mixed_code_hint_is_a_capital_next_to_a_digit(text):
    capitals, digits = set("ABCDEFGHIJKLMNOPQRSTUVWXYZ"), set("0123456789")
    pairs = {frozenset((a in capitals, b in digits)) for a, b in zip(text, text[1:])} | {
        frozenset((a in digits, b in capitals)) for a, b in zip(text, text[1:])}
    assert (detectors._MIXED_HINT.search(text) is not None) == (frozenset({True}) in pairs)


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from([*detectors._CODE_CUES_LOWER, *detectors._TRIP_CUES_LOWER, "co", "d", "é", "in", "tr",
                                 "pass", "w", " ", "x", "ai", "ter"]), max_size=6).map("".join))
def test_a_message_without_any_cue_skips_the_tests_of_each_list(lower):
    cue = detectors._ANY_CUE.search(lower) is not None
    assert cue == any(word in lower for word in detectors._CODE_CUES_LOWER + detectors._TRIP_CUES_LOWER)



# Messages around the codes after a cue and the street words of addresses: every cue and street
# word, in several cases, with letters that match others only in case-insensitive patterns (the long
# s, the dotted and dotless i, the Kelvin sign), spaces of both kinds, codes and numbers.
_CODE_CUE_WORDS = ["code", "codé", "codée", "codés", "codées", "digicode", "porte", "badge", "pin", "mdp", "interphone",
                   "cadenas", "alarme", "mot de passe", "mot\u00a0de\u00a0passe", "password", "passwd", "pwd", "plaque",
                   "immat", "immatriculation", "train", "tgv", "ter", "ouigo", "intercités", "intercites", "vol",
                   "flight"]
_AFTER_CUES = [" 4521B", ": AB-123-CD", " c'est azerty123", " n° 6112", " de la porte 1234", "6112", " = 0317 ",
               " est le 2024", " 18h30"]
_ODD_LETTERS = ["ſ", "İ", "ı", "K", "x", "é", " ", "\u00a0", "-", ".", ",", "'"]


def _cases(word):
    return {word, word.upper(), word.title(), word.replace("s", "ſ"), word.replace("i", "İ"), word.replace("i", "ı")}


def _cued_reference(text, patterns):
    return [(m.start("code"), m.end("code"), "COD") for pattern in patterns for m in pattern.finditer(text)]


_CUED_PATTERNS = (detectors._DOOR_CODE_RE, detectors._PASSWORD_RE, detectors._PLATE_RE, detectors._TRIP_RE)


def test_every_cue_starts_where_its_pattern_is_tried():
    """The patterns of codes after a cue are tried only where a cue starts (_CUE_START): each cue,
    in several cases, finds its code as the pattern's own search of the text does."""
    for cue in _CODE_CUE_WORDS:
        for written in _cases(cue):
            for after in _AFTER_CUES:
                for before in ("", "x ", "le ", "2"):
                    text = before + written + after
                    found: list = []
                    detectors._cued_codes(text, _CUED_PATTERNS, found)
                    assert found == _cued_reference(text, _CUED_PATTERNS), text


@settings(max_examples=600, deadline=None)
@given(st.lists(st.one_of(st.sampled_from(_CODE_CUE_WORDS).flatmap(lambda cue: st.sampled_from(sorted(_cases(cue)))),
                          st.sampled_from(_AFTER_CUES), st.sampled_from(_ODD_LETTERS)), max_size=8).map("".join))
def test_codes_after_a_cue_are_found_as_each_pattern_finds_them(text):
    """What the patterns find where cues start is what each pattern's own search of the whole text
    finds, pattern after pattern (a match ends before the next is searched for)."""
    found: list = []
    detectors._cued_codes(text, _CUED_PATTERNS, found)
    assert found == _cued_reference(text, _CUED_PATTERNS)


_GATE_BY_LETTERS = re.compile(rf"[0-9](?<![\w:,.][0-9])[0-9]{{0,3}}+[ \u00a0]*+,?[ \u00a0]*+({detectors._LETTER}++)")


def _gate_reference(text):
    """Where the address gate stops: a number not glued to a word, then a run of letters whose
    lower case is a street word."""
    return [m.start() for m in _GATE_BY_LETTERS.finditer(text) if m.group(1).lower() in detectors._ADR_GATE_WORDS]


def test_the_address_gate_stops_at_every_street_word_in_any_case():
    words = sorted(detectors._ADR_GATE_WORDS) + ["ru", "rues", "avenu", "x", "ſ", "İ"]
    for word in words:
        for written in _cases(word) | {word[:1].upper() + word[1:].lower(), word.swapcase()}:
            for text in (f"12 {written} des Lilas", f"3,{written}", f"x 4 {written}s", f"1234{written}", f"5 {written}"):
                assert [m.start() for m in detectors._ADR_GATE.finditer(text)] == _gate_reference(text), text


@settings(max_examples=600, deadline=None)
@given(st.lists(st.one_of(st.sampled_from(sorted(detectors._ADR_GATE_WORDS)).flatmap(
    lambda word: st.sampled_from(sorted(_cases(word)))), st.sampled_from(["12", "3", "12345", "1,", " ", "\u00a0", ",", ":"]),
    st.sampled_from(_ODD_LETTERS)), max_size=8).map("".join))
def test_the_address_gate_stops_where_the_next_word_is_a_street_word(text):
    """The address gate looks ahead for a street word in any case, and takes nothing of it."""
    assert [m.start() for m in detectors._ADR_GATE.finditer(text)] == _gate_reference(text)


def test_only_a_letter_or_its_capital_lowers_to_a_letter_of_the_street_words():
    """The gate's street words match a letter or its capital (_either_case): no other character
    becomes one of their letters in str.lower()."""
    letters = set("".join(detectors._ADR_GATE_WORDS))
    lowering: dict = {}
    for code in range(sys.maxunicode + 1):
        char = chr(code)
        if (lower := char.lower()) in letters:
            lowering.setdefault(lower, set()).add(char)
    assert lowering == {letter: {letter, letter.upper()} for letter in letters}


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="0123456789 x-٣８", max_size=24))
def test_long_numbers_are_looked_for_in_texts_of_eight_digits_or_more(text):
    """TEL and numeric COD are looked for where the text holds eight ASCII digits (other digits
    are folded to ASCII before, or are no digits here), wherever they stand."""
    looked: list = []
    original = detectors._detect_long_numbers
    detectors._detect_long_numbers = lambda text, found: looked.append(text)
    try:
        detect(text)
    finally:
        detectors._detect_long_numbers = original
    assert bool(looked) == (re.search(r"[0-9](?:[^0-9]*+[0-9]){7}", text) is not None)


# ---------------------------------------------------------------- batches

BATCH_WORDS = SMS_WORDS + [
    "\x00", "\n", "www", "WwW", "w", "/", "@", "0317", "482913", "9U2", "TL7CWJQ", "Code", "mdp", "paſſword", "İmmat",
    "pwd:", "tgv", "8h12", "ter", "pas", "AB-123-CD", "plaque", "\u00a0", "Σ", "ΑΣ", "é", "rue", "Bd", "a", "1",
]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.one_of(st.text(alphabet=SMS_ALPHABET + "\x00ſİıKΣW", max_size=40),
                          st.lists(st.sampled_from(BATCH_WORDS), max_size=15).map("".join)), max_size=12))
def test_a_batch_is_detected_as_each_of_its_messages(texts):
    assert detectors.detect_many(texts) == [detect(text) for text in texts]


@settings(max_examples=100, deadline=None)
@given(st.lists(st.lists(st.sampled_from(BATCH_WORDS), max_size=15).map("".join), max_size=12),
       st.integers(1, 60))
def test_a_batch_of_long_messages_is_detected_in_parts_as_each_of_its_messages(texts, characters):
    """Parts of at most `characters` characters, a longer message on its own: memory bounded, the
    same hits."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(detectors, "MANY_CHARACTERS", characters)
        assert detectors.detect_many(texts) == [detect(text) for text in texts]


def test_a_batch_runs_the_detectors_only_on_messages_that_may_have_a_hit(monkeypatch):
    texts = ["coucou", "rdv a 18h30 ok", "mon num 06 12 34 56 78", "a 14h, pour le code"]
    expected = [detect(text) for text in texts]
    ran = []
    detected = detectors._detected
    monkeypatch.setattr(detectors, "_detected", lambda text, *flags: ran.append(text) or detected(text, *flags))
    assert detectors.detect_many(texts) == expected
    assert ran == ["mon num 06 12 34 56 78"]


def test_only_the_folds_listed_match_a_cue_letter_besides_the_letter_and_its_capital():
    letter = re.compile("[a-z]", re.IGNORECASE)
    folds = [chr(c) for c in range(128, sys.maxunicode + 1) if not 0xD800 <= c < 0xE000 and letter.fullmatch(chr(c))]
    assert folds == sorted(detectors._FOLDS_TO_ASCII)
    assert all(re.fullmatch(to, char, re.IGNORECASE) for char, to in detectors._FOLDS_TO_ASCII.items())
