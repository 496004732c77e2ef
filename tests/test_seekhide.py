import json

import numpy as np
import pytest

from triage.seekhide import (
    AMBIGUOUS, ANTI_DICTIONARY, DICTIONARY, K_WORD, NTA, TA, UNKNOWN, UNTAGGED, SeekAndHide, known_names_of, stable_id,
    tables,
)


@pytest.fixture(scope="module")
def seeker(lexicons):
    return SeekAndHide(lexicons)


@pytest.mark.parametrize(
    "word, label, rule",
    [
        ("crayon", ANTI_DICTIONARY, "exact"),
        ("Cédric", DICTIONARY, "exact"),
        ("Pierre", AMBIGUOUS, "exact"),
        ("Namrata", UNKNOWN, "none"),
        ("etudiant", ANTI_DICTIONARY, "accent"),
        ("dèsolé", ANTI_DICTIONARY, "accent"),
        ("nicoooolaasss", DICTIONARY, "repetition"),
        ("merciiiii", ANTI_DICTIONARY, "repetition"),
        ("mouhahahahaha", ANTI_DICTIONARY, "onomatopoeia"),
        ("mdrrrrrrrr", ANTI_DICTIONARY, "repetition"),
        ("jexplique", ANTI_DICTIONARY, "apostrophe"),
        ("jtattends", ANTI_DICTIONARY, "concatenation"),
        ("surment", ANTI_DICTIONARY, "misspelling"),
    ],
)
def test_word_labels_and_the_heuristic_that_decided(seeker, word, label, rule):
    info = seeker.label_word(word)
    assert (info.label, info.rule) == (label, rule)


def test_repetitions_are_matched_to_the_dictionary_spelling(seeker):
    assert seeker.label_word("nicoooolaasss").match == "nicolas"


def test_a_misspelling_never_turns_a_first_name_into_a_word(seeker, lexicons):
    # 'julienn' is one edit from the name julien: not corrected into an ordinary word.
    assert seeker.label_word("julienn").label != ANTI_DICTIONARY
    assert seeker.label_word("julien").label == DICTIONARY


def _misspelling_one_candidate_at_a_time(lexicons, folded):
    """The misspelling rule as first written: a plain loop over the candidates."""
    from triage.seekhide import _edits1

    near_word = near_name = ""
    for candidate in _edits1(folded):
        if not near_name and (candidate in lexicons.first_names or candidate in lexicons.folded_names):
            near_name = candidate
        if not near_word and (candidate in lexicons.forms or candidate in lexicons.folded_anti
                              or candidate in lexicons.other_anti):
            near_word = candidate
    return near_word if near_word and not near_name else None


@pytest.mark.parametrize(
    "folded, expected",
    [
        ("beacoup", "beaucoup"),  # an inflected form
        ("telephonne", "telephonee"),  # only accent-folded: téléphonée
        ("montpelier", "montpellier"),  # only in the small lists (a city)
        ("surment", "surement"),
        ("julienn", None),  # one edit from the name julien
        ("bonswar", None),  # nothing one edit away
        ("ornythorinques", None),
    ],
)
def test_misspellings_find_the_first_ordinary_word_in_edit_order(seeker, lexicons, folded, expected):
    found = seeker._misspelling(folded)
    assert (found and found.match) == expected == _misspelling_one_candidate_at_a_time(lexicons, folded)


def test_labelling_a_batch_gives_the_labels_of_one_spelling_at_a_time(lexicons):
    # Every path of the heuristics, capitals, apostrophes, compounds, a weak name read as l'+word.
    words = ["crayon", "Cédric", "Pierre", "Namrata", "etudiant", "dèsolé", "nicoooolaasss", "merciiiii",
             "mouhahahahaha", "mdrrrrrrrr", "jexplique", "jtattends", "surment", "julienn", "Mme", "lecole",
             "Jean-Pierre", "arc-en-ciel", "aujourd’hui", "LYON", "beacoup", "ornythorinques", "x", "2", ""]
    batch, alone = SeekAndHide(lexicons), SeekAndHide(lexicons)
    batch.label_many(words)
    assert {w: batch._cache[w] for w in words} == {w: alone.label_word(w) for w in words}


def test_message_labels(seeker):
    assert seeker.seek("Coucou Patrice, ça va?").label == TA
    assert seeker.seek("ok jarrive dans 5 min :-)").label == NTA
    assert seeker.seek("tu as vu Namrata ?").label == UNTAGGED
    assert seeker.seek("rappelle moi au 0612345678").label == TA
    assert seeker.seek("").label == NTA


def test_replacement_codes_follow_the_paper(seeker, lexicons):
    result = seeker.seek("Coucou Patrice, ça va?")
    ident = lexicons.first_names["patrice"]
    assert result.anonymised == f"Coucou <PRE_7_{ident}>, ça va?"
    assert result.hidden == [(7, 14, "PRE")]


def test_same_spelling_same_code_and_nothing_else_changes(seeker):
    text = "appelle julie au 06 12 34 56 78 ! julie a dit 06 12 34 56 78"
    result = seeker.seek(text)
    codes = [c for c in result.anonymised.split() if c.startswith("<")]
    assert len(codes) == 4 and codes[0] == codes[2] and codes[1] == codes[3]
    # Everything outside hidden spans is unchanged, in order.
    kept = [text[e:s] for (_, e, _), (s, _, _) in zip([(0, 0, "")] + result.hidden, result.hidden + [(len(text), 0, "")])]
    for piece in kept:
        assert piece in result.anonymised
    assert stable_id("TEL", "06 12 34 56 78") == stable_id("TEL", "06 12 34 56 78")


def test_weak_names_need_a_capital_away_from_the_sentence_start(seeker):
    # 'Dubois' is a surname only: a name mid-sentence with a capital, not in lower case.
    assert seeker.seek("je suis chez Dubois").label == TA
    assert [w.label for w in seeker.seek("je suis chez dubois").words][-1] == UNKNOWN


def test_a_capitalised_word_after_a_title_is_a_surname(seeker):
    result = seeker.seek("rdv avec Mme Petit demain")
    assert result.label == TA and result.hidden[0][2] == "NOM"


@pytest.mark.parametrize("text, surname", [
    ("rdv avec M. Zorblatt demain", "Zorblatt"),  # the full stop of an abbreviation
    ("Dr. Zorblatt arrive", "Zorblatt"),
    ("Merci Madame. Petit souci ce matin", None),  # a full stop after a title written in full ends a sentence
    ("Regarde pr. Moi stp", None),  # a pronoun is no surname
    ("tel de M. ........ 00 00. Je suis passée", None),  # more than a full stop between
])
def test_a_surname_follows_its_title_right_away(seeker, text, surname):
    found = [word.text for word in seeker.seek(text).words if word.rule == "title"]
    assert found == ([surname] if surname else [])


def test_tables_3_and_4():
    t = tables([TA, NTA, UNTAGGED, NTA, TA], [TA, NTA, TA, TA, NTA])
    assert t.distribution == {TA: 2, NTA: 2, UNTAGGED: 1}
    assert t.confusion == {(TA, TA): 1, (NTA, NTA): 1, (NTA, TA): 1, (TA, NTA): 1}
    assert t.accuracy == 0.5
    assert "Table 4" in t.markdown()


def test_triage_seek_writes_one_row_per_message_and_prints_tables(cli, tmp_path):
    source = tmp_path / "sms.csv"
    source.write_text('id,text,label\n1,"Coucou Patrice, ça va?",TA\n2,ok merci,NTA\n', "utf-8")
    out = tmp_path / "out.csv"
    result = cli("seek", source, "-o", out)
    assert result.exit_code == 0, result.output
    assert "Table 3" in result.output and "Accuracy on tagged messages: 1.000" in result.output
    import csv

    rows = list(csv.DictReader(out.open(encoding="utf-8")))
    assert [r["seekhide"] for r in rows] == [TA, NTA]
    assert json.loads(rows[0]["hidden"]) == [[7, 14, "PRE"]]


def test_triage_seek_words_writes_one_row_per_word(cli, tmp_path):
    source = tmp_path / "sms.csv"
    source.write_text("text\njtattends pierre\n", "utf-8")
    out = tmp_path / "words.csv"
    assert cli("seek", source, "-o", out, "--words").exit_code == 0
    lines = out.read_text("utf-8").splitlines()
    assert lines[0] == "id,start,end,word,label,rule,match"
    assert lines[1].startswith("1,0,9,jtattends,ANTI_DICTIONARY,concatenation")
    assert ",pierre,AMBIGUOUS," in lines[2]


def test_a_missing_text_column_is_one_clear_line(cli, tmp_path):
    source = tmp_path / "sms.csv"
    source.write_text("id,message\n1,salut\n", "utf-8")
    result = cli("seek", source)
    assert result.exit_code == 1
    assert "columns found: id, message" in result.output
    assert "Traceback" not in result.output


def test_a_batch_of_empty_messages(seeker):
    analysis = seeker.analyse(["", "", "Coucou Patrice"])
    assert [analysis.message_label(i) for i in range(3)] == [NTA, NTA, TA]
    assert analysis.hidden_spans()[:2] == [[], []]


def test_per_spelling_rows_are_computed_once_and_again_for_another_owner(lexicons):
    seeker = SeekAndHide(lexicons)  # its own tables: the rows below must start empty
    analysis = seeker.analyse(["Coucou Patrice", "Coucou toi"])
    table, asked = analysis.spellings, []

    def length_row(sids):  # the rows of the spellings `sids`, asked for at once
        asked.extend(sids.tolist())
        return [(len(table.texts[sid]), 1.0) for sid in sids.tolist()]

    words = analysis.spelling[analysis.kind == K_WORD]  # Coucou, Patrice, Coucou, toi
    first = table.rows_for("test.length", words, length_row, 2, owner="model A")
    assert first[:, 0].tolist() == [6, 7, 6, 3]
    assert sorted(asked) == sorted(set(words.tolist()))  # "Coucou" once, though asked twice
    table.rows_for("test.length", words[:2], length_row, 2, owner="model A")
    assert len(asked) == 3  # already known
    table.rows_for("test.length", words[:2], length_row, 2, owner="model B")
    assert len(asked) == 5  # another owner: computed again


def test_a_column_read_at_some_words_is_computed_for_their_spellings_only_and_once(lexicons):
    from triage.seekhide.columns import SpellingColumn

    seeker = SeekAndHide(lexicons)  # its own tables: the column below must start empty
    analysis = seeker.analyse(["Coucou Patrice", "Coucou toi"])
    table, asked = analysis.spellings, []

    def lengths(table, sids):
        asked.extend(sids.tolist())
        return [(len(table.texts[sid]), sid % 2) for sid in sids.tolist()]

    column = SpellingColumn("test.lengths", lengths, np.int64, width=2)
    words = analysis.spelling[analysis.kind == K_WORD]  # Coucou, Patrice, Coucou, toi
    assert table.column_at(column, words[[0, 2]]).tolist() == [[6, words[0] % 2]] * 2
    assert asked == [words[0]]  # "Coucou" once, though asked twice; the others never
    assert table.column_at(column, words)[:, 0].tolist() == [6, 7, 6, 3]
    assert sorted(asked) == sorted(set(words.tolist()))
    more = seeker.analyse(["Salut Zorane"])  # the table grows: what was computed is kept
    assert more.spellings is table
    new = more.spelling[more.kind == K_WORD]
    assert table.column_at(column, np.concatenate([words, new]))[:, 0].tolist() == [6, 7, 6, 3, 5, 6]
    assert sorted(asked) == sorted(set(words.tolist()) | set(new.tolist()))
    assert table.column_at(column, words).tolist() == [[len(table.texts[s]), s % 2] for s in words.tolist()]


def test_a_column_of_every_spelling_keeps_its_values_as_the_table_grows(lexicons):
    """A declared column is computed for the spellings added since it was last read, into room
    that grows with the table: every spelling's values stay those computed for it."""
    from triage.seekhide.columns import SpellingColumn

    seeker = SeekAndHide(lexicons)  # its own tables: the column below must start empty
    column = SpellingColumn("test.shape", lambda table, sids: [(len(table.texts[s]), s % 3) for s in sids.tolist()],
                            np.int64, width=2)
    table = None
    for batch in range(30):  # each batch brings new spellings: the room is grown several times
        table = seeker.analyse([f"mot{batch}x{k} et Zorane{batch}y{k}" for k in range(batch + 1)]).spellings
        values = table.column(column)
        assert values.tolist() == [[len(text), s % 3] for s, text in enumerate(table.texts)]


def test_the_cost_of_one_word_is_bounded_whatever_its_length(lexicons):
    """A 16 kB message without a space once asked for 10 GB (misspelling candidates grow
    with the square of the word's length)."""
    import random
    import tracemalloc

    rng = random.Random(0)
    word = "".join(rng.choice("bcdfghjklmnpqrstvwxz") for _ in range(16_000))
    tracemalloc.start()
    try:
        result = SeekAndHide(lexicons).analyse([word]).result(0)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 50 * 2**20, f"{peak / 2**20:.0f} MiB for one word"
    assert [w.label for w in result.words] == [UNKNOWN]


# One message per step: the word the step labels, and what it is without the step.
STEP_EXAMPLES = [
    ("accent", "il est dèsolé", "dèsolé", "misspelling"),
    ("repetition", "salut nicoooolas", "nicoooolas", "none"),
    ("onomatopoeia", "bwahahah trop drôle", "bwahahah", "none"),
    ("apostrophe", "jexplique demain", "jexplique", "concatenation"),
    ("concatenation", "jtattends en bas", "jtattends", "misspelling"),
    ("misspelling", "c surment demain", "surment", "none"),
    ("title", "rdv chez Mme Zorblatt", "Zorblatt", "none"),
    ("weak-name", "on se voit kon veut", "kon", "exact"),
    ("capitalised-guess", "je vois Surment demain", "Surment", "misspelling"),
    ("determiner", "je t'ai acheté une rose", "rose", "exact"),
    ("copula", "l'eau est claire aujourd'hui", "claire", "exact"),
    ("first-name-surname", "je suis avec marie durand", "durand", "weak-name"),
    ("word-surname", "Sophie Petit arrive demain", "Petit", "exact"),
    ("abbreviation", "on se voit dem soir", "dem", "weak-name"),
    ("other-language", "I will call you later when I get home", "later", "weak-name"),
    ("known-names", "slt zorglubiiine", "zorglubiiine", "none"),
]
# What a step needs to act at all: known-names acts on the names it is given.
STEP_OPTIONS = {"known-names": lambda: {"known": known_names_of(["Zorglubine"])}}


@pytest.mark.parametrize("step, text, word, rule_without", STEP_EXAMPLES, ids=[e[0] for e in STEP_EXAMPLES])
def test_each_step_can_be_switched_off(lexicons, step, text, word, rule_without):
    from triage.seekhide import STEPS, SeekAndHide

    def rule_of(seeker):
        return next(str(w.rule) for w in seeker.seek(text).words if w.text == word)

    options = STEP_OPTIONS.get(step, dict)()
    assert step in STEPS
    assert rule_of(SeekAndHide(lexicons, **options)).startswith(step.replace("-guess", ""))
    assert rule_of(SeekAndHide(lexicons, off={step}, **options)) == rule_without


def test_every_word_step_has_an_example():
    from triage.seekhide import STEPS, WORD_STEPS

    assert sorted(WORD_STEPS) == sorted(example[0] for example in STEP_EXAMPLES)
    assert set(WORD_STEPS) < set(STEPS)  # the others are the recognizers' (tests/test_hide.py)


def test_an_unknown_step_is_refused_in_one_line(lexicons):
    from triage.errors import InputError
    from triage.seekhide import SeekAndHide

    with pytest.raises(InputError, match="unknown Seek&Hide step 'spelling'"):
        SeekAndHide(lexicons, off={"spelling"})
