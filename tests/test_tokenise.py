import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from triage.text import tokenise as tokenise_module
from triage.text.tokenise import (
    DETECTED, ELIDED, EMOJI, EMOTICON, KEEP_WHOLE_MAX_LENGTH, NUMBER, PUNCT, WORD, Tokeniser, tokenise,
)


def kinds(text, **kw):
    return [(t.text, t.kind) for t in tokenise(text, **kw)]


def test_punctuation_glued_to_a_word_is_split_off():
    assert kinds("Coucou Patrice, ça va?") == [
        ("Coucou", WORD), ("Patrice", WORD), (",", PUNCT), ("ça", WORD), ("va", WORD), ("?", PUNCT),
    ]


def test_elided_clitics_are_separated_unless_the_whole_is_a_word():
    assert kinds("j'arrive qu'il t’appelle") == [
        ("j'", WORD), ("arrive", WORD), ("qu'", WORD), ("il", WORD), ("t’", WORD), ("appelle", WORD),
    ]
    assert kinds("aujourd'hui", keep_whole={"aujourd'hui"}) == [("aujourd'hui", WORD)]
    assert kinds("c'est-à-dire") == [("c'", WORD), ("est-à-dire", WORD)]


def test_an_apostrophe_closing_a_word_that_elides_nothing_is_punctuation():
    # A closing quote or a word cut short: the word is looked up without it.
    assert kinds("on a dit 'Marie' hier, à tout' !") == [
        ("on", WORD), ("a", WORD), ("dit", WORD), ("'", PUNCT), ("Marie", WORD), ("'", PUNCT), ("hier", WORD),
        (",", PUNCT), ("à", WORD), ("tout", WORD), ("'", PUNCT), ("!", PUNCT),
    ]
    # An elided word keeps its apostrophe, even when a space follows it.
    assert kinds("Qu' est-ce, jusqu' à") == [("Qu'", WORD), ("est-ce", WORD), (",", PUNCT), ("jusqu'", WORD),
                                               ("à", WORD)]


def test_an_english_possessive_leaves_the_name_whole():
    assert kinds("Lucie's bike, it's ok") == [("Lucie", WORD), ("'s", PUNCT), ("bike", WORD), (",", PUNCT),
                                              ("it", WORD), ("'s", PUNCT), ("ok", WORD)]


def test_urls_emails_and_phone_numbers_stay_whole():
    text = "appelle au 06 12 34 56 78 ou julie.martin@example.fr, voir https://example.org/a?b=1."
    detected = [(t.text, t.tag) for t in tokenise(text) if t.kind == DETECTED]
    assert detected == [
        ("06 12 34 56 78", "TEL"), ("julie.martin@example.fr", "MEL"), ("https://example.org/a?b=1", "URL"),
    ]


@pytest.mark.parametrize("emoticon", [":-)", ";)", ":D", ":p", "<3", "^^", "xD", ":'(", "-_-", "OO", "OO'", "oO"])
def test_emoticons_stay_whole(emoticon):
    assert kinds(f"ok {emoticon} a+") [1] == (emoticon, EMOTICON)


def test_numbers_emoji_and_sms_rebus_words():
    assert kinds("rdv 18h30 2m1 😀😀") == [("rdv", WORD), ("18h30", NUMBER), ("2m1", WORD), ("😀😀", EMOJI)]


def test_offsets_point_back_into_the_text():
    text = "Slt!! t'es ou? jsuis chez Léna-Dav 😘 06.12.34.56.78"
    for token in tokenise(text):
        assert text[token.start : token.end] == token.text


def test_a_pasted_run_of_elisions_is_split_in_linear_time():
    # 200,000 "l'": copying and lower-casing the rest of the word at each apostrophe would
    # take about 4 * 10**10 character steps.
    text = "l'" * 200_000 + "ami"
    tokens = Tokeniser(frozenset({"aujourd'hui"})).tokenise(text)
    assert len(tokens) == 200_001
    assert tokens[0].text == "l'" and (tokens[-1].start, tokens[-1].text) == (400_000, "ami")


def _elisions_reference(start, word, keep_whole, out):
    """The former loop (quadratic on long words): the specification of the cuts."""
    while True:
        match = re.search("['’]", word)
        if match is None or match.end() == len(word):
            break
        if word.lower().replace("’", "'") in keep_whole:
            break
        if word[: match.start()].lower() not in ELIDED:
            break
        cut = match.end()
        out.append((start, word[:cut], "WORD"))
        start, word = start + cut, word[cut:]
    return start, word


@settings(max_examples=300, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.sampled_from(["l", "L", "qu", "jusqu", "quelqu", "aujourd", "hui", "un", "ami", "'", "’", "é"]), max_size=10))
def test_elisions_are_cut_as_before(lexicons, parts):
    word = "".join(parts)
    keep_whole = lexicons.apostrophe_words
    mine, theirs = [], []
    assert tokenise_module._split_elisions(3, word, keep_whole, mine) == _elisions_reference(3, word, keep_whole, theirs)
    assert mine == theirs
    assert max(map(len, keep_whole)) <= KEEP_WHOLE_MAX_LENGTH


_KINDS_REFERENCE = ((re.compile(tokenise_module._EMOTICON), EMOTICON), (re.compile(tokenise_module._EMOJI), EMOJI),
                    (re.compile(tokenise_module._WORD), WORD))


def _split_piece_reference(piece, keep_whole):
    """A piece's kind tried one pattern at a time (emoticon, emoji, word, else punctuation), then
    every word through the elision, possessive, quote and number checks: what split_piece must
    give."""
    start = len(piece) - len(piece.lstrip())
    value = piece[start:]
    kind = next((k for pattern, k in _KINDS_REFERENCE if pattern.fullmatch(value)), PUNCT)
    if kind != WORD:
        return ((start, value, kind),)
    out = []
    if "'" in value or "’" in value:
        start, value = tokenise_module._split_elisions(start, value, keep_whole, out)
    if len(value) > 3 and value[-1:] in "sS" and value[-2:-1] in "'’" and value[:-2].isalpha() \
            and value.lower().replace("’", "'") not in keep_whole:
        return (*out, (start, value[:-2], WORD), (start + len(value) - 2, value[-2:], PUNCT))
    closing = ""
    if value[-1:] in "'’" and len(value) > 1 and value[:-1].lower() not in ELIDED \
            and value.lower().replace("’", "'") not in keep_whole:
        value, closing = value[:-1], value[-1]
    number = value[:1].isdigit() and tokenise_module._NUMBER.fullmatch(value)
    out.append((start, value, NUMBER if number else WORD))
    if closing:
        out.append((start + len(value), closing, PUNCT))
    return tuple(out)


# Characters that make each kind and its edge cases: emoticons (":-)", "xD", "oo'", "^_^"), emoji and
# the digits of the emoji range (U+1F101, U+2776), words with apostrophes, hyphens and digits,
# numbers with units, punctuation, white space of several kinds.
PIECE_ALPHABET = list("aAxXdDpPoOsSjlqu0123456789:;=8-^_.'’()[]<>/\\|*3$@!?,h€") + [
    "é", "😀", "\u2764", "\ufe0f", "\u200d", "\U0001f101", "\u2776", " ", "\n", "\u00a0", "\u3000", "\u2028",
]


@settings(max_examples=1000, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=st.text(alphabet=st.sampled_from(PIECE_ALPHABET), max_size=14),
       words=st.lists(st.sampled_from(["aujourd'hui", "quelqu'un", "l'", "qu'", "Lucie's", "tout'", "18h30", "2m1",
                                       "xD", "OO'", "jusqu'au-boutiste", "prud’homme"]), max_size=3))
def test_a_piece_is_split_as_its_kinds_tried_one_by_one(lexicons, text, words):
    text += " ".join(words)
    for piece in tokenise_module.PIECE.findall(text):
        assert tokenise_module.split_piece(piece, lexicons.apostrophe_words) == \
            _split_piece_reference(piece, lexicons.apostrophe_words), piece


@settings(max_examples=1000, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(space=st.sampled_from(["", " ", "  ", "\n", "\u00a0"]),
       word=st.one_of(st.text(alphabet=st.sampled_from(list("xXoOTdDpPaeéß") + ["ǅ", "ж", "中", "Ω"]), max_size=5),
                      st.text(alphabet=st.characters(categories=["Lu", "Ll", "Lt", "Lm", "Lo", "So", "Nd"]),
                              max_size=4)))
def test_a_plain_word_is_one_piece_read_as_one_word(lexicons, space, word):
    text = space + word
    if tokenise_module.plain_word(text) is not None:
        assert tokenise_module.PIECE.findall(text) == [text]
        assert tokenise_module.split_piece(text, lexicons.apostrophe_words) == ((len(space), word, WORD),) == \
            _split_piece_reference(text, lexicons.apostrophe_words)


@settings(max_examples=300, deadline=None)
@given(values=st.lists(st.one_of(st.text(max_size=4), st.text(alphabet="abxXoOé\u2600\u25ff\u01c5\u216b1' \ud800", max_size=4)),
                       max_size=10))
def test_which_of_many_values_are_plain_is_is_plain_of_each(values):
    assert tokenise_module.are_plain(values) == [tokenise_module.is_plain(value) for value in values]
