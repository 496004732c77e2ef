"""What to hide is the user's annotation guide: `--hide` takes the categories to hide;
places (LIE) and brands (MAR) are found, tagged as such, and hidden only when asked."""

import json

import pandas as pd
import pytest

import triage
from triage import model as model_module
from triage.combiner import parse_hide
from triage.schema import DEFAULT_HIDE, HIDE_TAGS

from conftest import failed, succeeded

PLACES_AND_BRANDS = "default,LIE,MAR"


def classify(*texts: str, hide: str = "default") -> list[tuple[str, list]]:
    """(decision, hidden items as (word, TAG)) of each message."""
    out = triage.classify(pd.DataFrame({"text": list(texts)}), hide=hide)
    return [(decision, [(text[s:e], tag) for s, e, tag in json.loads(hidden)])
            for text, decision, hidden in zip(out.text, out.decision, out.hidden)]


def test_a_place_is_readable_by_default_and_hidden_as_a_place_when_asked():
    assert classify("je suis à Lyon demain") == [("NTA", [])]
    assert classify("je suis à Lyon demain", hide=PLACES_AND_BRANDS) == [("TA", [("Lyon", "LIE")])]


@pytest.mark.parametrize("text, place", [
    ("je rentre de Perpignan ce soir", "Perpignan"),
    ("on se voit sur Paris", "Paris"),
    ("on part à La Rochelle", "La Rochelle"),
])
def test_places_after_a_place_cue_are_places_never_first_names(text, place):
    (decision, hidden), = classify(text, hide=PLACES_AND_BRANDS)
    assert decision == "TA" and " ".join(w for w, _ in hidden) == place
    assert {tag for _, tag in hidden} == {"LIE"}
    assert classify(text) == [("NTA", [])]


@pytest.mark.parametrize("text, hidden", [
    ("la princesse de Lyon 07 !", "Lyon 07"),  # a department with its leading zero
    ("on se voit à Paris 15e demain", "Paris 15e"),  # an arrondissement
    ("elle habite à Lyon 3ème", "Lyon 3ème"),
    ("rdv à Marseille 13 !", "Marseille 13"),  # alone before punctuation
    ("je reste à Lyon 2 jours", "Lyon"),  # a number that counts something is no district
    ("à Lyon 2019 c'était bien", "Lyon"),
])
def test_a_district_right_after_a_place_is_hidden_with_it(text, hidden):
    (decision, found), = classify(text, hide=PLACES_AND_BRANDS)
    assert decision == "TA" and found == [(hidden, "LIE")]


@pytest.mark.parametrize("text", ["on va au Maroc cet été", "on va en Espagne", "je rentre d'Occitanie",
                                  "bisous de Londres", "je t'envoie ça sur facebook", "j'ai pris le TGV",
                                  "appelle moi sur Skype"])
def test_a_country_a_region_a_place_abroad_or_a_service_names_no_one_and_stays_readable(text):
    assert classify(text, hide=PLACES_AND_BRANDS) == [("NTA", [])]


@pytest.mark.parametrize("text", ["Joyeux Noël à tous !", "on se voit à Noël", "JOYEUX NOEL",
                                  "vacances de la Toussaint"])
def test_a_holiday_that_is_a_first_name_names_no_one(text):
    assert classify(text, hide=PLACES_AND_BRANDS) == [("NTA", [])]


def test_a_holiday_that_is_a_first_name_is_a_person_after_a_person_cue(lexicons):
    from triage import recognizers
    from triage.seekhide import SeekAndHide

    text = "joyeux Noël, je suis avec Noël"
    analysis = SeekAndHide(lexicons).analyse([text])
    _, _, recognised = recognizers.apply(analysis, frozenset(HIDE_TAGS))
    noel = [t for t in range(len(analysis.kind)) if text[analysis.start[t]:analysis.end[t]] == "Noël"]
    assert [bool(recognised.common[t]) for t in noel] == [True, False]


def test_a_first_name_that_is_a_city_is_a_person_after_a_person_cue_and_a_place_after_a_place_cue():
    (_, with_her), (_, to_the_city) = classify("avec Florence au cinéma", "on part à Florence",
                                             hide=PLACES_AND_BRANDS)
    assert with_her == [("Florence", "PRE")]
    assert to_the_city == [("Florence", "LIE")]
    (_, by_default), = classify("on part à Florence")
    assert by_default == []


@pytest.mark.parametrize("text, nickname", [
    ("tu viens juju ?", "juju"),
    ("coucou kéké", "kéké"),
    ("Bisous titi", "titi"),
    ("Salut Louloute", "Louloute"),
])
def test_nicknames_are_hidden_as_nicknames_by_default(text, nickname):
    assert classify(text) == [("TA", [(nickname, "SUR")])]


def test_ordinary_words_of_nickname_shape_stay_readable():
    assert classify("coucou papa, fais dodo") == [("NTA", [])]


@pytest.mark.parametrize("text, brand", [
    ("je passe chez Intersport avant", "Intersport"),
    ("je bosse chez flunch ce soir", "flunch"),
    ("rdv devant Feu Vert", "Feu Vert"),  # two words, the second with its capital
    ("on mange au Buffalo Grill", "Buffalo Grill"),
])
def test_shops_and_restaurants_that_can_place_a_person_are_brands(text, brand):
    (decision, hidden), = classify(text, hide=PLACES_AND_BRANDS)
    assert decision == "TA" and " ".join(w for w, _ in hidden) == brand and {tag for _, tag in hidden} == {"MAR"}


def test_a_brand_written_as_everyday_words_needs_its_capitals():
    (_, hidden), = classify("il est passé au feu vert", hide=PLACES_AND_BRANDS)
    assert ("vert", "MAR") not in hidden and ("feu", "MAR") not in hidden


def test_a_brand_is_readable_by_default_and_hidden_as_a_brand_when_asked():
    assert classify("je passe chez Decathlon") == [("NTA", [])]
    assert classify("je passe chez Decathlon", "j'ai appelé Free", hide=PLACES_AND_BRANDS) == [
        ("TA", [("Decathlon", "MAR")]), ("TA", [("Free", "MAR")])]


@pytest.mark.parametrize("text, brand", [
    ("je passe chez Leroy Merlin acheter des vis", "Leroy Merlin"),  # two first names, after a person cue
    ("je passe chez leroy merlin acheter des vis", "leroy merlin"),
    ("Leroy Merlin ferme à 20h", "Leroy Merlin"),
    ("un bon chez yves rocher", "yves rocher"),
    ("on mange au Burger King", "Burger King"),
    ("Air France a annulé mon vol", "Air France"),
])
def test_a_two_word_brand_is_a_brand_never_first_names(text, brand):
    (decision, hidden), = classify(text, hide=PLACES_AND_BRANDS)
    assert decision == "TA" and " ".join(w for w, _ in hidden) == brand
    assert {tag for _, tag in hidden} == {"MAR"}
    assert classify(text) == [("NTA", [])]  # readable, and no reason for TA, by default


def test_the_words_of_a_two_word_brand_apart_stay_what_they_are():
    (_, alone), (_, apart), (_, lower_case) = classify("j'ai vu Leroy hier", "chez Leroy, Merlin", "on prend air france")
    assert alone == [("Leroy", "PRE")]
    assert ("Leroy", "PRE") in apart and ("Merlin", "MAR") not in apart
    assert ("france", "MAR") not in lower_case  # a `capitalised` brand needs its capital


@pytest.mark.parametrize("text, name", [
    ("je sors avec Jennyfer ce soir", "Jennyfer"),
    ("coucou Zara !", "Zara"),
    ("je vais chez Zara", "Zara"),  # chez is a person cue: privacy first
])
def test_a_brand_named_like_a_person_is_a_person_after_a_person_cue(text, name):
    for hide in ("default", PLACES_AND_BRANDS):
        (decision, hidden), = classify(text, hide=hide)
        assert decision == "TA" and hidden == [(name, "PRE")]


def test_a_brand_named_like_a_person_is_a_brand_without_a_person_cue():
    assert classify("j'ai acheté un pull Jennyfer") == [("NTA", [])]
    assert classify("j'ai acheté un pull Jennyfer", hide=PLACES_AND_BRANDS) == [("TA", [("Jennyfer", "MAR")])]


def test_two_first_names_glued_are_a_first_name_not_one_name_twice_nor_a_word(lexicons):
    from triage import recognizers
    from triage.seekhide import SeekAndHide

    text = "bisous annesophie et mon louploup, je fais une analyse avec Jeanluc"
    analysis = SeekAndHide(lexicons).analyse([text])
    hidden, _, _ = recognizers.apply(analysis, frozenset(HIDE_TAGS))
    assert [(text[start:end], tag) for start, end, tag in hidden[0]] == [("annesophie", "PRE"), ("Jeanluc", "PRE")]


# The recognizers' steps: a message, the words the step tags, and their tags without it (the tags
# of what is hidden before the word scorer; for brand-word, the tag the word scorer would hide with).
RECOGNIZER_STEP_EXAMPLES = [
    ("glued-first-names", "coucou Marietherese, tu viens ?", ["Marietherese"], []),
    ("initial", "j'ai demandé à N de venir", ["N"], []),
    ("other-language-word", "just do it", ["just"], ["kept:False"]),
    ("fixed-phrase", "Grosso modo ça va", ["Grosso", "modo"], ["kept:False", "kept:False"]),
    ("unit-after-number", "rdv à 9 H. bisous", ["H"], ["kept:False"]),
    ("emphasised-word", "Okaay je vois ça demain", ["Okaay"], ["kept:False"]),
    ("subject-before-verb", "Zorane prend le bus", ["Zorane"], ["subject:False"]),
    ("two-word-brand", "je passe chez Leroy Merlin", ["Leroy", "Merlin"], ["PRE", "PRE"]),
    ("brand-person-cue", "je sors avec Jennyfer", ["Jennyfer"], ["MAR"]),
    ("brand-word", "j'ai appelé Free ce matin", ["Free"], ["scorer:"]),
    ("misspelt-place", "je vais à Marseile demain", ["Marseile"], []),
    ("place-district", "on se voit à Lyon 07 !", ["Lyon 07"], []),
    ("nickname-truncation", "slt seb tu viens demain", ["seb"], []),
    ("common-names", "on va en Espagne", ["Espagne"], ["LIE"]),
    ("holiday", "vacances de la Toussaint", ["Toussaint"], ["common:False"]),
    ("capital-after-cue", "t'as parlé avec Equipe ?", ["Equipe"], ["cued:False"]),
    ("scorer-decides", "on se vera demain", ["vera"], ["decides:False"]),
]


@pytest.mark.parametrize("step, text, words, tags_without", RECOGNIZER_STEP_EXAMPLES,
                         ids=[e[0] for e in RECOGNIZER_STEP_EXAMPLES])
def test_each_recognizer_step_can_be_switched_off(lexicons, step, text, words, tags_without):
    from triage import recognizers
    from triage.seekhide import K_WORD, STEPS, SeekAndHide

    def tags(seeker):
        analysis = seeker.analyse([text])
        hidden, _, recognised = recognizers.apply(analysis, frozenset(HIDE_TAGS))
        if step == "brand-word":
            return [f"scorer:{recognizers.TAG_CODES[recognised.scorer_tag[t]]}"
                    for t in range(len(analysis.kind)) if analysis.kind[t] == K_WORD
                    and text[analysis.start[t]:analysis.end[t]] in words]
        if step in ("other-language-word", "fixed-phrase", "unit-after-number", "emphasised-word"):
            return [f"kept:{bool(recognised.kept_visible[t])}" for t in range(len(analysis.kind))
                    if analysis.kind[t] == K_WORD and text[analysis.start[t]:analysis.end[t]] in words]
        if step == "subject-before-verb":
            return [f"subject:{bool(recognised.subject[t])}" for t in range(len(analysis.kind))
                    if analysis.kind[t] == K_WORD and text[analysis.start[t]:analysis.end[t]] in words]
        if step == "capital-after-cue":
            return [f"cued:{bool(recognised.capital_after_cue[t])}" for t in range(len(analysis.kind))
                    if analysis.kind[t] == K_WORD and text[analysis.start[t]:analysis.end[t]] in words]
        if step == "holiday":
            return [f"common:{bool(recognised.common[t])}" for t in range(len(analysis.kind))
                    if analysis.kind[t] == K_WORD and text[analysis.start[t]:analysis.end[t]] in words]
        if step == "scorer-decides":
            return [f"decides:{bool(recognised.scorer_decides[t])}" for t in range(len(analysis.kind))
                    if analysis.kind[t] == K_WORD and text[analysis.start[t]:analysis.end[t]] in words]
        return [tag for start, end, tag in hidden[0] if text[start:end] in words]

    assert step in STEPS
    assert tags(SeekAndHide(lexicons, off={step})) == tags_without
    assert tags(SeekAndHide(lexicons)) != tags_without


def test_a_word_no_list_holds_before_a_verb_at_a_sentence_start_sends_its_message_to_a_person(monkeypatch):
    # Ten messages, one read: without the step, the riskiest is the one with a nickname after a cue.
    # The subject is not hidden for it: the floor of its probability is below the hide threshold.
    from triage import recognizers

    texts = ["Gromf est malade", "chez moumoune ce soir", "je suis en retard", "on se voit demain ?",
             "il fait beau ici", "tu as fini le devoir", "je rentre vers huit heures", "merci pour hier soir",
             "ok pour samedi", "bonne nuit a demain"]
    assert [decision for decision, _ in classify(*texts)][:2] == ["EXPERT", "NTA"]
    assert classify(*texts)[0] == ("EXPERT", [])
    monkeypatch.setattr(recognizers, "SUBJECT_RISK", 0.0)
    assert [decision for decision, _ in classify(*texts)][:2] == ["NTA", "EXPERT"]


def test_a_word_with_a_capital_right_after_a_person_cue_sends_its_message_to_a_person(monkeypatch):
    # Ten messages, one read: without the step, the riskiest is the one with a nickname after a cue in
    # lower case. The pet name is not hidden for it: the floor of its probability is below the hide threshold.
    from triage import recognizers

    texts = ["je sors avec Poussin", "chez moumoune ce soir", "je suis en retard", "on se voit demain ?",
             "il fait beau ici", "tu as fini le devoir", "je rentre vers huit heures", "merci pour hier soir",
             "ok pour samedi", "bonne nuit a demain"]
    assert classify(*texts)[:2] == [("EXPERT", []), ("NTA", [])]
    monkeypatch.setattr(recognizers, "CUE_CAPITAL_RISK", 0.0)
    assert [decision for decision, _ in classify(*texts)][:2] == ["NTA", "EXPERT"]


@pytest.mark.parametrize("text", ["Coucou Toi !", "Merci Beaucoup !", "Bisous Vous deux"])
def test_a_pronoun_or_an_everyday_word_after_a_person_cue_is_no_person(lexicons, text):
    from triage import recognizers
    from triage.seekhide import SeekAndHide

    analysis = SeekAndHide(lexicons).analyse([text])
    _, _, recognised = recognizers.apply(analysis, frozenset(HIDE_TAGS))
    assert not recognised.capital_after_cue.any()


@pytest.mark.parametrize("text, initial", [
    ("j'ai demandé à N de venir", "N"),
    ("Au sujet de M. , je pense", "M"),
    ("bisou M.", "M"),
    ("merci B !", "B"),
])
def test_a_capital_alone_after_a_person_cue_is_an_initial_hidden_as_a_first_name(text, initial):
    assert classify(text) == [("TA", [(initial, "PRE")])]


@pytest.mark.parametrize("text", [
    "rdv avec M. Zorglub demain",  # a title before a surname
    "mon T shirt est sale",  # after a possessive
    "et G fini mes devoirs",  # G: j'ai
    "bisous X",  # a kiss
    "avec C trop bien",  # C: c'est
    "T. Zorglub vient",  # no cue before it
    "il ressemble à M.Zorglub",  # a title glued to the surname
    "bisous J arrive demain",  # J: je
    "à 9 H. on part",  # a number between the cue and the letter
    "bisous P-P-PARFAIT",  # part of a longer word
])
def test_a_capital_alone_elsewhere_is_no_initial(text):
    (_, hidden), = classify(text)
    assert all(len(word) > 1 for word, _ in hidden)


def test_every_recognizer_step_has_an_example():
    from triage.seekhide import RECOGNIZER_STEPS

    assert sorted(RECOGNIZER_STEPS) == sorted(example[0] for example in RECOGNIZER_STEP_EXAMPLES)


def test_a_category_left_out_of_hide_is_neither_hidden_nor_a_reason_for_ta():
    assert classify("appelle Julie au 06 12 34 56 78", hide="TEL") == [("TA", [("06 12 34 56 78", "TEL")])]
    assert classify("appelle-moi au 06 12 34 56 78", hide="PRE,NOM") == [("NTA", [])]


def test_hide_reads_default_plus_tags_in_any_order_and_case():
    assert parse_hide("default") == DEFAULT_HIDE
    assert parse_hide("mar, Default,lie") == (*DEFAULT_HIDE, "LIE", "MAR")
    assert parse_hide(["PRE", "TEL"]) == ("PRE", "TEL")
    assert set(parse_hide(",".join(HIDE_TAGS))) == set(HIDE_TAGS)
    assert parse_hide("all") == parse_hide("ALL, default") == HIDE_TAGS


def test_an_unknown_category_is_one_line_listing_the_categories(cli, tmp_path):
    source = tmp_path / "in.csv"
    source.write_text("text\nje suis à Lyon\n", "utf-8")
    message = failed(cli("classify", source, "-o", tmp_path / "out.csv", "--hide", "default,CITY"), 1,
                     "'CITY'", "LIE", "MAR", "default")
    assert "PRE, NOM, SUR, TEL, MEL, URL, ADR, COD, LIE, MAR" in message
    assert not (tmp_path / "out.csv").exists()


def test_classify_says_what_it_hides(cli, tmp_path):
    source = tmp_path / "in.csv"
    source.write_text("text\nje suis à Lyon\n", "utf-8")
    result = cli("classify", source, "-o", tmp_path / "out.csv", "--hide", "default,LIE")
    succeeded(result)
    assert "hidden: default,LIE (first name, surname, nickname" in result.output and "place)" in result.output


def gold_with_a_place_and_a_name() -> pd.DataFrame:
    texts = ["je suis à Lyon avec Julie", "rdv à Perpignan demain", "ok pour ce soir"]
    spans = [[[10, 14, "LIE"], [20, 25, "PRE"]], [[6, 15, "LIE"]], []]
    return pd.DataFrame({"text": texts, "label": ["TA", "TA", "NTA"], "spans": [json.dumps(s) for s in spans]})


def test_evaluate_counts_as_leaks_only_the_spans_of_hidden_categories():
    gold, trained = gold_with_a_place_and_a_name(), model_module.default_model_path()
    by_default = triage.evaluate(gold, model=trained, no_cross_validation=True).data
    with_places = triage.evaluate(gold, model=trained, hide=PLACES_AND_BRANDS, no_cross_validation=True).data
    assert by_default["hide"] == list(DEFAULT_HIDE)
    assert by_default["chosen"]["gold_spans"] == 1 and set(by_default["chosen"]["residual_by_type"]) == {"PRE"}
    assert with_places["chosen"]["gold_spans"] == 3
    assert with_places["chosen"]["residual_by_type"]["LIE"] == {"spans": 2, "readable": 0}
    assert by_default["chosen"]["over_masking_rate"] == 0.0  # the places are readable, as asked


def test_hiding_a_word_of_a_category_left_out_of_hide_counts_as_over_masking():
    # The guide says Nancy is a place here; the machines hide it as a first name ("pour" cues a person).
    gold = pd.DataFrame({"text": ["le train pour Nancy part à 8h"], "label": ["TA"],
                         "spans": [json.dumps([[14, 19, "LIE"]])]})
    trained = model_module.default_model_path()
    assert classify("le train pour Nancy part à 8h") == [("TA", [("Nancy", "PRE")])]
    assert triage.evaluate(gold, model=trained, no_cross_validation=True).data["chosen"]["over_masking_rate"] > 0
    with_places = triage.evaluate(gold, model=trained, hide=PLACES_AND_BRANDS, no_cross_validation=True).data["chosen"]
    assert with_places["over_masking_rate"] == 0 and with_places["residual_spans"] == 0


def release_with(cli, tmp_path, *hide: str) -> tuple[dict, str]:
    """Classify two messages with `hide`, release them with the same, and read the datasheet."""
    tmp_path.mkdir()
    source, classified, ws = tmp_path / "in.csv", tmp_path / "c.csv", tmp_path / "ws.sqlite"
    source.write_text("id,text\n1,je suis à Lyon demain\n2,ok pour ce soir\n", "utf-8")
    succeeded(cli("classify", source, "-o", classified, *hide, "--workspace", ws))
    succeeded(cli("release", classified, "--workspace", ws, "-o", tmp_path / "corpus.csv", *hide,
                  "--withhold-undecided"))
    return (json.loads((tmp_path / "corpus.datasheet.json").read_text("utf-8")),
            (tmp_path / "corpus.datasheet.md").read_text("utf-8"))


def test_the_datasheet_names_the_categories_hidden_and_left_readable(cli, tmp_path):
    sheet, markdown = release_with(cli, tmp_path / "default")
    assert sheet["hidden_categories"] == list(DEFAULT_HIDE) and sheet["readable_categories"] == ["LIE", "MAR"]
    assert "Left readable by design: places (LIE), brands (MAR)." in markdown
    sheet, markdown = release_with(cli, tmp_path / "places", "--hide", PLACES_AND_BRANDS)
    assert sheet["hidden_categories"] == [*DEFAULT_HIDE, "LIE", "MAR"] and sheet["readable_categories"] == []
    assert "`--hide default,LIE,MAR`" in markdown and "places (LIE)" in markdown
    assert sheet["hidden_items_by_tag"] == {"LIE": 1}


# ------------------------------------------------------------- first names cut short

@pytest.mark.parametrize("text, nickname", [
    ("slt seb tu viens demain", "seb"),  # Sébastien
    ("on mange avec caro ce soir", "caro"),  # Caroline; a surname too
    ("slt flo ca va", "flo"),  # a rare first name, which Seek&Hide leaves unknown in lower case
    ("jai vu steph hier", "steph"),  # a surname too: a nickname first
])
def test_a_first_name_cut_short_after_a_person_cue_is_hidden_as_a_nickname(text, nickname):
    assert classify(text) == [("TA", [(nickname, "SUR")])]


@pytest.mark.parametrize("text", [
    "ok pour dim",  # dimanche (a surname too: the word scorer decides on that)
    "rdv lun soir",  # lundi
    "je suis arrivé 2 eme",
    "on se voit et mag apres",  # magasin
])
def test_ordinary_starts_of_first_names_listed_as_exceptions_are_no_nicknames(text):
    (_, hidden), = classify(text)
    assert "SUR" not in {tag for _, tag in hidden}


def test_a_first_name_cut_short_is_hidden_only_in_the_categories_asked_for():
    assert classify("slt seb tu viens demain", hide="PRE,NOM") == [("NTA", [])]


def test_the_truncation_step_is_a_switch_of_the_nickname_recognizer(lexicons):
    from triage.recognizers import SUR, recognise
    from triage.seekhide import SeekAndHide

    def tags(off):
        analysis = SeekAndHide(lexicons, off=off).analyse(["slt seb tu viens demain"])
        return recognise(analysis).tag.tolist()

    assert tags(()).count(SUR) == 1 and SUR not in tags({"nickname-truncation"})


def test_truncations_are_starts_of_common_first_names_only(lexicons):
    from triage.recognizers import truncations

    starts = truncations(lexicons)
    assert {"seb", "caro", "steph", "flo", "greg"} <= starts
    assert "sebastien" not in starts and "se" not in starts  # a whole name, or too short
